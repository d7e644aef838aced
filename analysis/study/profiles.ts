/**
 * The study arms under every normalisation profile (src/text/profiles.ts), for arms.json's `profiles` list:
 * per profile and arm, the corpus CER of the arm and of the raw OCR on its lines, and the ΔCER against the
 * baseline arm on the lines both hold (Σ arm edits − Σ baseline edits) / Σ gold characters — the primary
 * profile's row repeats the headline figures. Point estimates; CIs and tests are the primary profile's
 * (analysis/study/arms.ts). A failed correction scores as the OCR text, as everywhere in the analysis; each line's
 * distances are analysis/score/profiles.ts's, as metrics.json's are.
 */
import { resolveNormalization, type NormalizationConfig, type NormalizationProfile } from '../../src/text/profiles';
import type { ArmLine, LoadedArm } from '../inputs/arm-inputs';
import { cmpStr, ratio, round } from '../format';
import { scoredText } from '../score/failed-line';
import { lineDistances } from '../score/profiles';

interface Sums {
  ref: number;
  ce: number;
  ocr: number;
  lines: number;
}
const zero = (): Sums => ({ ref: 0, ce: 0, ocr: 0, lines: 0 });

/** Per line key (dataset + sample_id): gold characters, the arm's and the OCR's character edits under `profile`. */
function lineEdits(
  arm: LoadedArm,
  profile: NormalizationProfile,
  collapseWhitespace: boolean,
): Map<string, { ref: number; ce: number; ocr: number; dataset: string }> {
  const out = new Map<string, { ref: number; ce: number; ocr: number; dataset: string }>();
  for (const [dataset, lines] of arm.byDataset) {
    for (const { record: r } of lines as ArmLine[]) {
      const d = lineDistances(r.gt_text, r.ocr_text, scoredText(r), null, profile, collapseWhitespace);
      out.set(`${dataset}\u0000${r.sample_id}`, { ref: d.ocr.refChars, ce: d.p5.charEdits, ocr: d.ocr.charEdits, dataset });
    }
  }
  return out;
}

const cer = (s: Sums) => round(ratio(s.ce, s.ref));

/** arms.json `profiles`: one entry per profile (the primary first), each with its rules and a row per arm. */
export function armProfiles(
  arms: readonly LoadedArm[],
  baseline: LoadedArm,
  collapseWhitespace: boolean,
  normalization: NormalizationConfig | null | undefined,
) {
  const settings = resolveNormalization(normalization === null ? { secondary: [] } : normalization);
  return [settings.primary, ...settings.secondary].map((profile, i) => {
    const base = lineEdits(baseline, profile, collapseWhitespace);
    const rows = [...arms]
      .sort((a, b) => cmpStr(a.info.name, b.info.name))
      .map((arm) => {
        const edits = arm === baseline ? base : lineEdits(arm, profile, collapseWhitespace);
        const all = zero();
        const paired = { ...zero(), base: 0 };
        const byDataset = new Map<string, Sums>();
        for (const [key, e] of edits) {
          for (const s of [all, byDataset.get(e.dataset) ?? byDataset.set(e.dataset, zero()).get(e.dataset)!]) {
            s.ref += e.ref;
            s.ce += e.ce;
            s.ocr += e.ocr;
            s.lines++;
          }
          const b = base.get(key);
          if (b) {
            paired.ref += e.ref;
            paired.ce += e.ce;
            paired.base += b.ce;
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
