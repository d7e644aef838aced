/**
 * The stage's arms analysis (analysis/stage.ts, over `<results>/arms/rag` and `arms/zero_shot`) taken as the one the
 * design files project, when it covers their lines: every rag line with its zero_shot line in every dataset,
 * counted with these very texts under the same profiles, none filled in. Otherwise the design files analyse their
 * two arms themselves (./own-arms.ts).
 */
import type { DesignInputs } from '../inputs/design-inputs';
import type { ArmsAnalysis } from '../study/types';
import type { DesignArms } from './own-arms';
import { countsOf, type ArmPairCounts } from './pair-counts';

/** The arms analysis the stage ran before the design files (analysis/stage.ts), the second argument of `analyzeDesignFiles`. */
export interface StageArms {
  analysis: ArmsAnalysis;
  /** The results dir it read: the arms' folders are `<resultsDir>/arms/<arm>/`. */
  resultsDir: string;
  /** Its line counts of rag and zero_shot when it ran over the very arms the files read (analysis/stage/from-arms.ts); else null. */
  counts: ArmPairCounts | null;
  /** A study's own arms (a `study:` block): they join rag and zero_shot in the Lines view, ΔCER against its baseline arm. */
  studyArms: boolean;
}

/** The arms analysis compared `n` lines of `ds` in both arms, none filled in. */
function sameLines(a: ArmsAnalysis, ds: string, n: number): boolean {
  const m = (name: string) => a.arms.find((x) => x.name === name)?.datasets[ds];
  return [m('rag'), m('zero_shot')].every((x) => x !== undefined && x.lines === n && x.filled_lines === 0);
}

/** The stage's analysis as the design files' analyses, or null where it does not cover their lines (`profiles`: their names, in order). */
export function stageArms(
  stage: StageArms | undefined,
  inputs: DesignInputs,
  profiles: readonly string[],
  collapseWhitespace: boolean,
): DesignArms | null {
  const a = stage?.analysis;
  const c = stage?.counts;
  const zs = inputs.zeroShot;
  if (!a || !c || !zs || a.datasets.length !== inputs.datasets.length) return null;
  if (c.collapseWhitespace !== collapseWhitespace || c.profiles.join('\n') !== profiles.join('\n')) return null;
  for (const ds of inputs.datasets) {
    const rag = inputs.rag.byDataset.get(ds)!;
    const zsById = new Map((zs.byDataset.get(ds) ?? []).map((x) => [x.record.sample_id, x.record]));
    if (!sameLines(a, ds, rag.length)) return null;
    for (const { record } of rag) {
      const z = zsById.get(record.sample_id);
      if (!z || !countsOf(c.rag, ds, record) || !countsOf(c.zeroShot, ds, z)) return null;
    }
  }
  return { pair: a, ragAlone: null, counts: c };
}
