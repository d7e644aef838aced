/**
 * Public API of the analyze stage (pure core; no Temporal imports).
 *   run / optionsFrom (./stage.ts)  → the stage: the arms study, the design document's files, one report in <results>/study/
 *   analyzeDesignFiles(opts)              → score, write per-dataset + aggregated documents, render the report (opts.reportDir)
 *   renderReport(dir, opts, outDir) → report.md / report.html / charts from the outputs on disk (design files, arms analysis)
 *   metrics: scorePair, cer, wer, alignSequences, normalizeArabic, …
 *   analyzeArms(opts)              → all study arms together: <results>/study/arms.json, per-arm metrics.json
 *   paired tests: pairedBootstrapDelta, signTest, wilcoxonSignedRank, holm
 */
export { analyzeDesignFiles, DEFAULT_BOOTSTRAP } from './documents/analyze';
export { renderReport, loadReportDocs, type RenderedReport } from './report/report';
export { analyzeArms, type AnalyzeArmsOptions, type ArmsAnalysis, type ArmResult, type ArmMetrics } from './study/arms';
export { armsSection, buildArmsCharts, ARMS_CHART_NAMES } from './report/sections/arms';
export { pairedBootstrapDelta, lineDifferences, signTest, wilcoxonSignedRank, holm } from './stats/paired';
export { buildCharts, CHART_NAMES, CHART_TEMPLATE_DIR, loadTemplate, type ChartName } from './charts/specs';
export { compileToVega, renderSvg, svgToPng } from './charts/render';
export * from './score/text-metrics';
export { bootstrapRates, mulberry32, seedFor } from './stats/bootstrap';
export { lineChanges, anchoredErrors, classifyEdit, ErrorChangeAccumulator, ERROR_CATEGORIES } from './score/error-changes';
export { DEFAULT_ERAS, type Era } from './score/eras';
export { SCORE_BUCKETS, OCR_CER_BANDS, scoreBucket, ocrCerBand } from './score/bands';
export { sourceMatcher, globToRegExp } from './inputs/leakage';
export type {
  AnalyzeOptions,
  AnalysisSummary,
  DatasetSummary,
  DatasetInfo,
  StudyMeta,
  NormalizationOptions,
  RenderReportOptions,
} from './types';
