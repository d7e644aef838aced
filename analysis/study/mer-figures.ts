/**
 * The bounded figures of one arm on one scope (docs/scoring.md#match-error-rate-and-the-preference-score): cMER
 * and wMER, micro (Σ edits / Σ (H + S + D + I) over the scope's lines) and macro (the mean of each line's MER), and
 * the preference score against the OCR — per line the sign of the change in cMER (+1 the output is better than the
 * OCR text, −1 worse, 0 the same), averaged over the lines — with its block-bootstrap 95 % interval (the lines'
 * signs resampled in their clusters, analysis/stats/block-stats.ts) and the share of lines made worse. A line with
 * nothing to align (empty gold and output) has MER 0. All under the primary normalisation profile.
 */
import type { ArmRow } from '../score/arm-line';
import { blockRateInterval } from '../stats/block-stats';
import { seedFor } from '../stats/bootstrap';
import type { Scope } from './compare';
import type { Settings } from './settings-type';
import { ratio, round } from '../format';

export interface Preference {
  /** Mean over lines of sign(cMER(OCR) − cMER(output)). */
  score: number | null;
  ci95: [number, number] | null;
  /** Share of the lines whose cMER the output made worse than the OCR text's. */
  worse_share: number | null;
}

export interface MerFigures {
  cmer: number | null;
  cmer_ci: [number, number] | null;
  cmer_macro: number | null;
  wmer: number | null;
  wmer_macro: number | null;
  ocr_cmer: number | null;
  preference: Preference;
}

const lineMer = (e: number, t: number) => (t > 0 ? e / t : 0);

/** The figures of `rows[scope.from, scope.to)`; `key` names the arm and scope in the resampling seeds. */
export function merFigures(rows: readonly ArmRow[], scope: Scope, s: Settings, key: string): MerFigures {
  const lines = rows.slice(scope.from, scope.to);
  const n = lines.length;
  let ce = 0,
    ct = 0,
    we = 0,
    wt = 0,
    ocrCe = 0,
    ocrCt = 0,
    cm = 0,
    wm = 0,
    worse = 0;
  const signs = new Float64Array(n);
  lines.forEach((r, i) => {
    ce += r.ce;
    ct += r.ct;
    we += r.we;
    wt += r.wt;
    ocrCe += r.ocr_ce;
    ocrCt += r.ocr_ct;
    const out = lineMer(r.ce, r.ct);
    cm += out;
    wm += lineMer(r.we, r.wt);
    signs[i] = Math.sign(lineMer(r.ocr_ce, r.ocr_ct) - out);
    if (signs[i] < 0) worse++;
  });
  const ones = new Float64Array(n).fill(1);
  const micro = blockRateInterval(
    Float64Array.from(lines, (r) => r.ct),
    Float64Array.from(lines, (r) => r.ce),
    scope.design,
    s.iterations,
    seedFor(s.seed, `arms:${key}:cmer`),
    s.minClusters,
  );
  const pref = blockRateInterval(ones, signs, scope.design, s.iterations, seedFor(s.seed, `arms:${key}:preference`), s.minClusters);
  return {
    cmer: round(ratio(ce, ct)),
    cmer_ci: roundPair(micro.ci95),
    cmer_macro: round(ratio(cm, n)),
    wmer: round(ratio(we, wt)),
    wmer_macro: round(ratio(wm, n)),
    ocr_cmer: round(ratio(ocrCe, ocrCt)),
    preference: {
      score: round(
        ratio(
          signs.reduce((a, b) => a + b, 0),
          n,
        ),
      ),
      ci95: roundPair(pref.ci95),
      worse_share: round(ratio(worse, n)),
    },
  };
}

function roundPair(ci: [number, number] | null): [number, number] | null {
  return ci ? [round(ci[0])!, round(ci[1])!] : null;
}
