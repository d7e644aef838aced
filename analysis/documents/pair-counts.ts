/**
 * The counts of the design document's pair — the rag correction and the zero_shot correction of every line, and
 * the OCR text — under every normalisation profile, as the arms analysis of the two arms counted them
 * (./own-arms.ts, or the stage's: `ArmPairCounts`, matched by (dataset, sample_id) and the line's texts). Nothing
 * is scored here.
 *
 * Each correction is scored against its own record's gold text (arms.json's rule): a zero_shot line whose gold
 * differs from rag's is counted against zero_shot's gold (the documents warn about such lines).
 */
import type { CorrectionRecord } from '../../src/llm/records';
import { sameTexts, type ArmLineCounts, type LineCounts } from '../score/line-counts';
import { lineKey } from '../inputs/records';

/** The arms analysis's counts of the two arms, and how they were counted (the profiles by name, in order). */
export interface ArmPairCounts {
  profiles: string[];
  collapseWhitespace: boolean;
  rag: ArmLineCounts;
  zeroShot: ArmLineCounts;
}

/** One rag line's counts and its zero_shot line's (null without one). */
export interface PairCounts {
  rag: LineCounts;
  zeroShot: LineCounts | null;
}

/** This line's counts in `from`, when they count these very texts. */
export function countsOf(from: ArmLineCounts, dataset: string, r: CorrectionRecord): LineCounts | null {
  const c = from.get(lineKey(dataset, r.sample_id));
  return c && sameTexts(c.record, r) ? c : null;
}

/** Every rag line of one dataset with its zero_shot line (`zeroShotOf`), with the analysis's counts. */
export function pairCounts(
  dataset: string,
  rag: readonly CorrectionRecord[],
  zeroShotOf: (sampleId: string) => CorrectionRecord | null,
  counts: ArmPairCounts,
): PairCounts[] {
  const take = (from: ArmLineCounts, r: CorrectionRecord): LineCounts => {
    const c = countsOf(from, dataset, r);
    if (!c) throw new Error(`internal: the arms analysis did not count ${dataset} ${r.sample_id}`);
    return c;
  };
  return rag.map((r) => {
    const z = zeroShotOf(r.sample_id);
    return { rag: take(counts.rag, r), zeroShot: z ? take(counts.zeroShot, z) : null };
  });
}
