import path from 'node:path';
import type { ArmPairCounts } from '../documents/pair-counts';
import type { StageArms } from '../documents/stage-arms';
import type { ArmsAnalysis, ArmsLineCounts } from '../study/arms';
import type { AnalyzeOptions } from '../types';

/**
 * The arms analysis's line counts of rag and zero_shot, when it ran over the very arms the design document's files
 * read: the default arms (no `study:`), rag in ragDir and zero_shot, the baseline, in baselineDir.
 */
export function armPairCounts(options: AnalyzeOptions, counts: ArmsLineCounts): ArmPairCounts | null {
  const a = options.arms;
  if (!a?.defaultArms || a.baseline !== 'zero_shot' || !options.baselineDir) return null;
  const armDir = (name: string) => path.resolve(a.resultsDir, 'arms', name);
  if (path.resolve(options.ragDir) !== armDir('rag') || path.resolve(options.baselineDir) !== armDir('zero_shot')) return null;
  const rag = counts.of('rag');
  const zeroShot = counts.of('zero_shot');
  return rag && zeroShot ? { profiles: counts.profiles, collapseWhitespace: counts.collapseWhitespace, rag, zeroShot } : null;
}

/** The arms analysis of the run as the design files take it (analysis/documents/stage-arms.ts). */
export function stageArmsOf(options: AnalyzeOptions, analysis: ArmsAnalysis, counts: ArmPairCounts | null): StageArms {
  const a = options.arms!;
  return { analysis, resultsDir: a.resultsDir, counts, studyArms: !a.defaultArms };
}
