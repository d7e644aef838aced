import path from 'node:path';
import type { ArmPairCounts } from '../documents/pair-counts';
import { studyArmSources } from '../lines/study-arms';
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

/** What the design files take from the arms analysis of the same run (analysis/documents/stage-arms.ts). */
export function fromArms(counts: ArmPairCounts | null, analysis: ArmsAnalysis | null): Pick<AnalyzeOptions, 'fromArms'> {
  return counts && analysis ? { fromArms: { counts, analysis } } : {};
}

/** The study arms join rag and zero_shot in the Lines view, with ΔCER against the study's baseline arm. */
export function studyLineArms(options: AnalyzeOptions, arms: ArmsAnalysis): Pick<AnalyzeOptions, 'studyArms' | 'baselineArm'> {
  return { studyArms: studyArmSources(options.arms!.resultsDir, arms), baselineArm: options.baselineArm ?? arms.baseline };
}
