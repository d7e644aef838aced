/**
 * The study arms under every normalisation profile (src/text/profiles.ts), for arms.json's `profiles` list:
 * per profile and arm, the corpus CER of the arm and of the raw OCR on its lines, and the ΔCER against the
 * baseline arm on the lines both hold (Σ arm edits − Σ baseline edits) / Σ gold characters — the primary
 * profile's row repeats the headline figures. Point estimates; CIs and tests are the primary profile's
 * (analysis/study/arms.ts). A failed correction scores as the OCR text, as everywhere in the analysis; each line's
 * counts are analysis/score/profile-scores.ts's.
 */
import type { NormalizationProfile } from '../../src/text/profiles';
import type { AlignedArms } from './alignment';
import type { LoadedArm } from '../inputs/arm-inputs';
import { cmpStr, ratio, round } from '../format';
import type { ProfileScores } from '../score/profile-scores';

interface Sums {
  ref: number;
  ce: number;
  ocr: number;
  lines: number;
}
const zero = (): Sums => ({ ref: 0, ce: 0, ocr: 0, lines: 0 });

const cer = (s: Sums) => round(ratio(s.ce, s.ref));

/**
 * arms.json `profiles`: one entry per profile (the primary first), each with its rules and a row per arm — over
 * each arm's own lines (a line it lacks and that is scored as its OCR text is left out), from the counts of
 * analysis/score/profile-scores.ts.
 */
export function armProfiles(
  arms: readonly LoadedArm[],
  baseline: LoadedArm,
  profiles: readonly NormalizationProfile[],
  scores: ProfileScores,
  aligned: AlignedArms,
) {
  const baseLines = aligned.lines.get(baseline.info.name)!;
  return profiles.map((profile, i) => {
    const rows = [...arms]
      .sort((a, b) => cmpStr(a.info.name, b.info.name))
      .map((arm) => {
        const own = aligned.lines.get(arm.info.name)!;
        const c = scores.get(arm.info.name)![i];
        const base = scores.get(baseline.info.name)![i];
        const all = zero();
        const paired = { ...zero(), base: 0 };
        const byDataset = new Map<string, Sums>();
        for (let k = 0; k < own.length; k++) {
          if (own[k].filled) continue;
          const dataset = aligned.datasets[k];
          for (const s of [all, byDataset.get(dataset) ?? byDataset.set(dataset, zero()).get(dataset)!]) {
            s.ref += c.refChars[k];
            s.ce += c.ce[k];
            s.ocr += c.ocrCe[k];
            s.lines++;
          }
          if (!baseLines[k].filled) {
            paired.ref += c.refChars[k];
            paired.ce += c.ce[k];
            paired.base += base.ce[k];
            paired.lines++;
          }
        }
        return {
          arm: arm.info.name,
          lines: all.lines,
          cer: cer(all),
          ocr_cer: round(ratio(all.ocr, all.ref)),
          delta_cer_vs_ocr: round(ratio(all.ce - all.ocr, all.ref)),
          delta_cer_vs_baseline: arm === baseline ? null : round(ratio(paired.ce - paired.base, paired.ref)),
          n_paired: arm === baseline ? null : paired.lines,
          datasets: Object.fromEntries(
            [...byDataset]
              .sort((a, b) => cmpStr(a[0], b[0]))
              .map(([d, s]) => [d, { lines: s.lines, cer: cer(s), ocr_cer: round(ratio(s.ocr, s.ref)) }]),
          ),
        };
      });
    return { profile: profile.name, primary: i === 0, rules: profile.rules, unit: profile.unit, arms: rows };
  });
}
