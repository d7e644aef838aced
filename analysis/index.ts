/**
 * Public API of the analyze stage (pure core; no Temporal imports).
 *   analyzeStudy(opts)              → score, write per-dataset + aggregated documents, render the report
 *   renderReport(phase5Dir, opts)   → report.md / report.html / charts from existing documents
 *   metrics: scorePair, cer, wer, alignSequences, normalizeArabic, …
 */
export { analyzeStudy, DEFAULT_BOOTSTRAP } from './analyze';
export { renderReport, loadReportDocs, type RenderedReport } from './report';
export { buildCharts, CHART_NAMES, CHART_TEMPLATE_DIR, loadTemplate, type ChartName } from './charts';
export { compileToVega, renderSvg, svgToPng } from './render';
export * from './metrics';
export { bootstrapRates, mulberry32, seedFor } from './bootstrap';
export { lineChanges, anchoredErrors, classifyEdit, ErrorChangeAccumulator, ERROR_CATEGORIES } from './error-changes';
export { DEFAULT_ERAS, SCORE_BUCKETS, OCR_CER_BANDS, scoreBucket, ocrCerBand, sourceMatcher, globToRegExp, type Era } from './format';
export type { AnalyzeOptions, AnalysisSummary, DatasetSummary, DatasetInfo, StudyMeta, NormalizationOptions, RenderReportOptions } from './types';
