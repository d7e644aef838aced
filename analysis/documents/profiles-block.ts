/**
 * metrics.json's `profiles` block: per normalisation profile (src/text/profiles.ts), its rules, the OCR / corrected /
 * zero_shot figures and the sums behind them (`p5_*` the rag arm's, `p2_*` zero_shot's: published keys, docs/glossary.md) — the line counts of ./pair-counts.ts added up per profile
 * (./pair-rows.ts). The primary profile's row repeats the headline figures. Point estimates only: the CIs and tests
 * are computed under the primary profile.
 */
import type { DistanceScore } from '../../src/text/distance';
import type { NormalizationProfile, NormalizationSettings } from '../../src/text/profiles';
import { ratio, round } from '../format';

/** Summed edits and reference lengths of one profile over a set of lines. */
export interface ProfileCounts {
  ref_chars: number;
  ref_words: number;
  ocr_ce: number;
  ocr_we: number;
  p5_ce: number;
  p5_we: number;
  /** Over the lines that also have a zero_shot line. */
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

/** Add one line's distances under one profile (the OCR text's, the rag correction's, the zero_shot correction's or null). */
export function addLine(c: ProfileCounts, d: { ocr: DistanceScore; rag: DistanceScore; zeroShot: DistanceScore | null }): void {
  c.ref_chars += d.ocr.refChars;
  c.ref_words += d.ocr.refWords;
  c.ocr_ce += d.ocr.charEdits;
  c.ocr_we += d.ocr.wordEdits;
  c.p5_ce += d.rag.charEdits;
  c.p5_we += d.rag.wordEdits;
  if (!d.zeroShot) return;
  c.paired_ref_chars += d.ocr.refChars;
  c.paired_ref_words += d.ocr.refWords;
  c.paired_p5_ce += d.rag.charEdits;
  c.paired_p5_we += d.rag.wordEdits;
  c.p2_ce += d.zeroShot.charEdits;
  c.p2_we += d.zeroShot.wordEdits;
}

const rates = (ce: number, rc: number, we: number, rw: number) => ({ cer: round(ratio(ce, rc)), wer: round(ratio(we, rw)) });

/** The `profiles` list of metrics.json: one row per profile, its rules, OCR / rag / zero_shot figures and the sums. */
export function profilesBlock(tallies: ReadonlyArray<Pick<ProfileTally, 'profile' | 'primary' | 'counts'>>) {
  return tallies.map(({ profile, primary, counts: c }) => ({
    profile: profile.name,
    primary,
    rules: profile.rules,
    unit: profile.unit,
    ocr_baseline: rates(c.ocr_ce, c.ref_chars, c.ocr_we, c.ref_words),
    corrected: rates(c.p5_ce, c.ref_chars, c.p5_we, c.ref_words),
    paired:
      c.paired_ref_chars + c.paired_ref_words > 0
        ? {
            phase2_baseline: rates(c.p2_ce, c.paired_ref_chars, c.p2_we, c.paired_ref_words),
            phase5_corrected: rates(c.paired_p5_ce, c.paired_ref_chars, c.paired_p5_we, c.paired_ref_words),
            delta_cer: round(c.paired_ref_chars > 0 ? (c.paired_p5_ce - c.p2_ce) / c.paired_ref_chars : null),
          }
        : null,
    counts: { ...c },
  }));
}

type ProfileRow = ReturnType<typeof profilesBlock>[number];

/** The pooled `profiles` list of the aggregate metrics.json: the datasets' sums added, profile by profile. */
export function pooledProfiles(perDataset: ReadonlyArray<unknown>): ReturnType<typeof profilesBlock> {
  const lists = perDataset.filter((x): x is ProfileRow[] => Array.isArray(x));
  if (!lists.length) return [];
  return profilesBlock(
    lists[0].map((row, i) => {
      const counts = zeroCounts();
      for (const l of lists) for (const k of Object.keys(counts) as Array<keyof ProfileCounts>) counts[k] += l[i].counts[k];
      return { profile: { name: row.profile, rules: row.rules, unit: row.unit, remove: [], map: {} }, primary: row.primary, counts };
    }),
  );
}
