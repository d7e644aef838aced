/**
 * A line of the design document's pair (rag, zero_shot) under every normalisation profile (src/text/profiles.ts):
 * its distances per profile and their sums, behind metrics.json's `profiles` block
 * (analysis/documents/profiles-block.ts). The study's arms are counted per profile by ./profile-scores.ts
 * (arms.json's `profiles` list and the tidy table). Point estimates only: the CIs and tests are computed under the
 * primary profile.
 */
import type { NormalizationProfile, NormalizationSettings } from '../../src/text/profiles';
import { scoreDistances, type DistanceScore } from '../../src/text/distance';

/** Summed edits and reference lengths of one profile over a set of lines. */
export interface ProfileCounts {
  ref_chars: number;
  ref_words: number;
  ocr_ce: number;
  ocr_we: number;
  p5_ce: number;
  p5_we: number;
  /** Over the lines that also have a Phase 2 line. */
  paired_ref_chars: number;
  paired_ref_words: number;
  paired_p5_ce: number;
  paired_p5_we: number;
  p2_ce: number;
  p2_we: number;
}

export interface ProfileTally {
  profile: NormalizationProfile;
  primary: boolean;
  counts: ProfileCounts;
}

export const zeroCounts = (): ProfileCounts => ({
  ref_chars: 0,
  ref_words: 0,
  ocr_ce: 0,
  ocr_we: 0,
  p5_ce: 0,
  p5_we: 0,
  paired_ref_chars: 0,
  paired_ref_words: 0,
  paired_p5_ce: 0,
  paired_p5_we: 0,
  p2_ce: 0,
  p2_we: 0,
});

/** One tally per profile, the primary first. */
export function profileTallies(s: NormalizationSettings): ProfileTally[] {
  return [s.primary, ...s.secondary].map((profile, i) => ({ profile, primary: i === 0, counts: zeroCounts() }));
}

/** The distances of one line under one profile (the OCR text stands in for a failed correction). */
export interface LineDistances {
  ocr: DistanceScore;
  p5: DistanceScore;
  p2: DistanceScore | null;
}

/** Distances of a line under `profile`; `p5Hyp` / `p2Hyp` are the texts that are scored. */
export function lineDistances(
  gold: string,
  ocr: string,
  p5Hyp: string,
  p2Hyp: string | null,
  profile: NormalizationProfile,
  collapseWhitespace: boolean,
): LineDistances {
  const opts = { collapseWhitespace, profile };
  const o = scoreDistances(gold, ocr, opts);
  return {
    ocr: o,
    p5: p5Hyp === ocr ? o : scoreDistances(gold, p5Hyp, opts),
    p2: p2Hyp === null ? null : p2Hyp === ocr ? o : scoreDistances(gold, p2Hyp, opts),
  };
}

export function addLine(c: ProfileCounts, d: LineDistances): void {
  c.ref_chars += d.ocr.refChars;
  c.ref_words += d.ocr.refWords;
  c.ocr_ce += d.ocr.charEdits;
  c.ocr_we += d.ocr.wordEdits;
  c.p5_ce += d.p5.charEdits;
  c.p5_we += d.p5.wordEdits;
  if (!d.p2) return;
  c.paired_ref_chars += d.ocr.refChars;
  c.paired_ref_words += d.ocr.refWords;
  c.paired_p5_ce += d.p5.charEdits;
  c.paired_p5_we += d.p5.wordEdits;
  c.p2_ce += d.p2.charEdits;
  c.p2_we += d.p2.wordEdits;
}
