/**
 * Paired block bootstrap and block permutation test of a difference of two ratios of sums, each arm with its own
 * denominator: Δ = Σ e_b / Σ n_b − Σ e_a / Σ n_a (micro ΔcMER: edits over H + S + D + I, which differ per output).
 * The same clusters, strata, seeds, interval, SE, detectable effect and too-few-clusters rule as
 * ./block-stats.ts `pairedBlockDelta`; a resample is each arm's ratio of its resampled sums, a permutation swaps a
 * cluster's two outputs (its edits and its totals) with probability ½. Macro: the mean over strata of each
 * stratum's Δ.
 */
import { seedFor } from './bootstrap';
import {
  blockDelta,
  blockSums,
  strataBlocks,
  type BlockDelta,
  type BlockDesign,
  type PairedBlockResult,
  type ResampleOptions,
} from './block-stats';
import { DEFAULT_MIN_CLUSTERS, tooFewClusters } from './min-clusters';
import { Mulberry32 } from './resample-rng';

/** One arm's per-line edits and totals. */
export interface RatioLines {
  edits: ArrayLike<number>;
  totals: ArrayLike<number>;
}

type Cl = { ea: Float64Array; na: Float64Array; eb: Float64Array; nb: Float64Array };

/** Pooled and macro Δ of the clusters `pick` chooses (per stratum); `swap(b)` exchanges cluster b's two outputs. */
function stat(c: Cl, groups: Int32Array[], pick: (g: Int32Array, k: number) => number, swap: (b: number) => boolean) {
  let [EA, NA, EB, NB] = [0, 0, 0, 0];
  let macro = 0,
    macroOk = true;
  for (const g of groups) {
    let [ea, na, eb, nb] = [0, 0, 0, 0];
    for (let k = 0; k < g.length; k++) {
      const b = pick(g, k);
      const s = swap(b);
      ea += s ? c.eb[b] : c.ea[b];
      na += s ? c.nb[b] : c.na[b];
      eb += s ? c.ea[b] : c.eb[b];
      nb += s ? c.na[b] : c.nb[b];
    }
    [EA, NA, EB, NB] = [EA + ea, NA + na, EB + eb, NB + nb];
    if (na > 0 && nb > 0) macro += eb / nb - ea / na;
    else macroOk = false;
  }
  return { pooled: NA > 0 && NB > 0 ? EB / NB - EA / NA : null, macro: macroOk ? macro / groups.length : null };
}

export function pairedRatioDelta(a: RatioLines, b: RatioLines, d: BlockDesign, opts: ResampleOptions, macro = false): PairedBlockResult {
  const c: Cl = { ea: blockSums(a.edits, d), na: blockSums(a.totals, d), eb: blockSums(b.edits, d), nb: blockSums(b.totals, d) };
  const groups = strataBlocks(d);
  const withMacro = macro && groups.length > 1;
  const keep = () => false;
  const observed = stat(c, groups, (g, k) => g[k], keep);
  const clusters = c.ea.length;
  const few = tooFewClusters(clusters, opts.minClusters ?? DEFAULT_MIN_CLUSTERS);
  const [bootP, bootM] = [[] as number[], [] as number[]];
  const rng = new Mulberry32(opts.seed);
  for (let it = 0; few === null && it < opts.iterations; it++) {
    const s = stat(c, groups, (g) => g[Math.floor(rng.next() * g.length)], keep);
    if (s.pooled !== null) bootP.push(s.pooled);
    if (withMacro && s.macro !== null) bootM.push(s.macro);
  }
  const perm = new Mulberry32(seedFor(opts.seed, 'permutation'));
  let [geP, geM] = [0, 0];
  const tol = (x: number | null) => (x === null ? Infinity : Math.abs(x) * (1 - 1e-12));
  for (let it = 0; few === null && it < opts.permutations; it++) {
    const flips = Uint8Array.from({ length: clusters }, () => (perm.next() < 0.5 ? 1 : 0));
    const s = stat(
      c,
      groups,
      (g, k) => g[k],
      (bl) => flips[bl] === 1,
    );
    if (s.pooled !== null && Math.abs(s.pooled) >= tol(observed.pooled)) geP++;
    if (withMacro && s.macro !== null && Math.abs(s.macro) >= tol(observed.macro)) geM++;
  }
  const agree = [...Array(a.edits.length).keys()].every((i) => a.edits[i] === b.edits[i] && a.totals[i] === b.totals[i]);
  const context = { few, permutations: opts.permutations, clusters, agree };
  const result = (est: number | null, draws: number[], ge: number): BlockDelta =>
    blockDelta(est, Float64Array.from(draws), few !== null ? null : (1 + ge) / (1 + opts.permutations), context);
  return { pooled: result(observed.pooled, bootP, geP), macro: withMacro ? result(observed.macro, bootM, geM) : null };
}
