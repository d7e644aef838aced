/**
 * The counts of the design document's pair — the rag correction and the zero_shot correction of every line, and
 * the OCR text — under every normalisation profile, from the arms analysis's scorer
 * (analysis/score/profile-scores.ts `scoreProfiles`). When the arms analysis ran over the same two arms in the same
 * run (analysis/stage.ts), its counts are taken as they are (`ArmPairCounts`, matched by (dataset, sample_id) and
 * the line's texts); every other line (rag alone, a baseline elsewhere) is scored here, the same way.
 *
 * Each correction is scored against its own record's gold text (arms.json's rule): a zero_shot line whose gold
 * differs from rag's is counted against zero_shot's gold (the documents warn about such lines).
 */
import type { CorrectionRecord } from '../../src/llm/records';
import type { NormalizationProfile } from '../../src/text/profiles';
import { sameTexts, scoreRecords, type ArmLineCounts, type LineCounts } from '../score/line-counts';
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
  p5: LineCounts;
  p2: LineCounts | null;
}

/** Every rag line of one dataset with its zero_shot line (`p2Of`), counted; `reused`: lines taken from `arms`. */
export function pairCounts(
  dataset: string,
  rag: readonly CorrectionRecord[],
  p2Of: (sampleId: string) => CorrectionRecord | null,
  profiles: readonly NormalizationProfile[],
  collapseWhitespace: boolean,
  arms: ArmPairCounts | null,
): { lines: PairCounts[]; reused: number } {
  const usable = arms && arms.collapseWhitespace === collapseWhitespace && sameProfiles(arms.profiles, profiles) ? arms : null;
  let reused = 0;
  const take = (from: ArmLineCounts | undefined, r: CorrectionRecord): LineCounts | null => {
    const c = from?.get(lineKey(dataset, r.sample_id));
    if (!c || !sameTexts(c.record, r)) return null;
    reused++;
    return c;
  };
  const p2Records = rag.map((r) => p2Of(r.sample_id));
  const p5 = rag.map((r) => take(usable?.rag, r));
  const p2 = p2Records.map((r) => (r ? take(usable?.zeroShot, r) : null));
  fill(p5, rag, profiles, collapseWhitespace);
  fill(p2, p2Records, profiles, collapseWhitespace);
  return { lines: rag.map((_, i) => ({ p5: p5[i]!, p2: p2[i] })), reused };
}

/** Score the records whose counts are still missing (null) and put them in place. */
function fill(
  counts: Array<LineCounts | null>,
  records: ReadonlyArray<CorrectionRecord | null>,
  profiles: readonly NormalizationProfile[],
  collapseWhitespace: boolean,
): void {
  const todo = records.flatMap((r, i) => (r && !counts[i] ? [i] : []));
  const scored = scoreRecords(
    todo.map((i) => records[i]!),
    profiles,
    collapseWhitespace,
  );
  todo.forEach((i, k) => (counts[i] = scored[k]));
}

const sameProfiles = (names: readonly string[], profiles: readonly NormalizationProfile[]) =>
  names.length === profiles.length && names.every((n, i) => n === profiles[i].name);
