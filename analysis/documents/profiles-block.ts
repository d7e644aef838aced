/**
 * metrics.json's `profiles` block: per normalisation profile, its rules, the OCR / corrected / Phase 2 figures and
 * the sums behind them (analysis/score/profiles.ts). The primary profile's row repeats the headline figures.
 */
import { zeroCounts, type ProfileCounts, type ProfileTally } from '../score/profiles';
import { ratio, round } from '../format';

const rates = (ce: number, rc: number, we: number, rw: number) => ({ cer: round(ratio(ce, rc)), wer: round(ratio(we, rw)) });

/** The `profiles` list of metrics.json: one row per profile, its rules, OCR / corrected / Phase 2 figures and the sums. */
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
