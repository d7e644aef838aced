/**
 * Public API of the analyze stage (pure core; no Temporal imports).
 *   analyzeStudy(opts)              → score, write per-dataset + aggregated documents, render the report
 *   renderReport(ragDir, opts)   → report.md / report.html / charts from existing documents
 *   metrics: scorePair, cer, wer, alignSequences, normalizeArabic, …
 *   analyzeArms(opts)              → all study arms together: <results>/study/arms.json, per-arm metrics.json
 *   paired tests: pairedBootstrapDelta, signTest, wilcoxonSignedRank, holm
 */
export { analyzeStudy, DEFAULT_BOOTSTRAP } from './analyze';
export { renderReport, renderArmsReport, loadReportDocs, type RenderedReport } from './report';
export {
  analyzeArms,
  ARM_OCR_BANDS,
  armOcrBand,
  type AnalyzeArmsOptions,
  type ArmsAnalysis,
  type ArmResult,
  type ArmMetrics,
} from './arms';
export { armsSection, buildArmsCharts, ARMS_CHART_NAMES } from './arms-report';
export { pairedBootstrapDelta, lineDifferences, signTest, wilcoxonSignedRank, holm } from './paired';
export { buildCharts, CHART_NAMES, CHART_TEMPLATE_DIR, loadTemplate, type ChartName } from './charts';
export { compileToVega, renderSvg, svgToPng } from './render';
export * from './metrics';
export { bootstrapRates, mulberry32, seedFor } from './bootstrap';
export { lineChanges, anchoredErrors, classifyEdit, ErrorChangeAccumulator, ERROR_CATEGORIES } from './error-changes';
export { DEFAULT_ERAS, SCORE_BUCKETS, OCR_CER_BANDS, scoreBucket, ocrCerBand, sourceMatcher, globToRegExp, type Era } from './format';
export type {
  AnalyzeOptions,
  AnalysisSummary,
  DatasetSummary,
  DatasetInfo,
  StudyMeta,
  NormalizationOptions,
  RenderReportOptions,
} from './types';
