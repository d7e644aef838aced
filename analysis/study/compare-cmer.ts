/**
 * A planned contrast measured in micro cMER (`analysis.primary_metric: cmer`,
 * docs/scoring.md#match-error-rate-and-the-preference-score): ΔcMER = cMER(arm) − cMER(vs), each cMER Σ edits /
 * Σ (H + S + D + I) of its own lines, with the interval, SE, detectable effect and permutation p of the paired block
 * bootstrap (analysis/stats/ratio-delta.ts) on the same clusters as the ΔCER of ./compare.ts. Better / same / worse
 * compare the lines' cMER; the per-line tests of ΔCER (Wilcoxon, sign) are not run for it (null).
 */
import { ratio, round } from '../format';
import { seedFor } from '../stats/bootstrap';
import { pairedRatioDelta } from '../stats/ratio-delta';
import type { BlockDelta } from '../stats/block-stats';
import type { MacroComparison, PairedResult, ResampleSettings, Scope } from './compare';

/** One arm's per-line Levenshtein edits and alignment totals H + S + D + I. */
export interface CmerLines {
  ce: ArrayLike<number>;
  ct: ArrayLike<number>;
}

const pValue = (p: number | null): number | null => (p === null || !Number.isFinite(p) ? null : Number(p.toPrecision(6)));
const roundPair = (ci: [number, number] | null): [number, number] | null => (ci ? [round(ci[0])!, round(ci[1])!] : null);
const lineMer = (e: number, t: number) => (t > 0 ? e / t : 0);

function macroOf(m: BlockDelta): MacroComparison {
  return { delta_cer: round(m.delta), ci: roundPair(m.ci95), se: round(m.se), mde: round(m.mde), p: pValue(m.p), reason: m.reason };
}

/** `arm` vs `reference` in ΔcMER on the scope's lines; `key` names the comparison in its seed. */
export function compareCmer(reference: CmerLines, arm: CmerLines, scope: Scope, s: ResampleSettings, key: string): PairedResult {
  const sl = (x: ArrayLike<number>) => Float64Array.from({ length: scope.to - scope.from }, (_, i) => x[scope.from + i]);
  const a = { edits: sl(reference.ce), totals: sl(reference.ct) };
  const b = { edits: sl(arm.ce), totals: sl(arm.ct) };
  const r = pairedRatioDelta(a, b, scope.design, { ...s, seed: seedFor(s.seed, `arms:${key}:cmer`) }, scope.macro);
  let [EA, NA, EB, NB, better, worse] = [0, 0, 0, 0, 0, 0];
  for (let i = 0; i < a.edits.length; i++) {
    [EA, NA, EB, NB] = [EA + a.edits[i], NA + a.totals[i], EB + b.edits[i], NB + b.totals[i]];
    const [ma, mb] = [lineMer(a.edits[i], a.totals[i]), lineMer(b.edits[i], b.totals[i])];
    if (mb < ma) better++;
    else if (mb > ma) worse++;
  }
  const [ra, rb] = [ratio(EA, NA), ratio(EB, NB)];
  return {
    n_paired: a.edits.length,
    delta_cer: ra === null || rb === null ? null : round(rb - ra),
    ci: roundPair(r.pooled.ci95),
    se: round(r.pooled.se),
    mde: round(r.pooled.mde),
    p: pValue(r.pooled.p),
    p_wilcoxon: null,
    p_sign: null,
    better,
    same: a.edits.length - better - worse,
    worse,
    reason: r.pooled.reason,
    macro: r.macro ? macroOf(r.macro) : null,
  };
}
