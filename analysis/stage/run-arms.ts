import type { StageHooks } from '../../src/stages/shared/types';
import { fewClustersWarning, reasonsIn } from '../stats/min-clusters';
import { analyzeArms, type ArmsAnalysis, type ArmsLineCounts } from '../study/arms';
import { analyzeProvenance } from '../study/provenance';
import type { AnalyzeOptions } from '../types';

/** The arms analysis of a run, with the provenance of its retrieved hits (`study/provenance.json`). */
export async function runArms(
  options: AnalyzeOptions,
  arms: NonNullable<AnalyzeOptions['arms']>,
  hooks: StageHooks,
  onLineCounts?: (c: ArmsLineCounts) => void,
): Promise<ArmsAnalysis> {
  const analysis = await analyzeArmsOnly(options, arms, hooks, onLineCounts);
  const sources = Object.fromEntries((arms.exclusions ?? []).map((e) => [e.dataset, e.source_pattern ?? undefined]));
  analysis.provenance = await analyzeProvenance({
    resultsDir: arms.resultsDir,
    baseline: arms.baseline,
    sources,
    bootstrap: options.bootstrap,
    datasets: options.datasets,
    ...(arms.defaultArms ? { defaultArms: arms.defaultArms } : {}),
  });
  const few = fewClustersWarning('study/provenance.json', reasonsIn(analysis.provenance));
  if (few) analysis.warnings.push(few);
  return analysis;
}

async function analyzeArmsOnly(
  options: AnalyzeOptions,
  arms: NonNullable<AnalyzeOptions['arms']>,
  hooks: StageHooks,
  onLineCounts?: (c: ArmsLineCounts) => void,
): Promise<ArmsAnalysis> {
  // `arms` is the arms analysis's own options object, passed whole: a field added to it (the frozen plan) arrives.
  return analyzeArms({
    ...arms,
    bootstrap: options.bootstrap,
    collapseWhitespace: options.collapseWhitespace,
    normalization: options.normalization,
    datasets: options.datasets,
    ...(options.maxFailedShare !== undefined ? { maxFailedShare: options.maxFailedShare } : {}),
    ...(onLineCounts ? { onLineCounts } : {}),
    onProgress: hooks.onProgress && ((done, total) => hooks.onProgress!(done, total)),
  });
}
