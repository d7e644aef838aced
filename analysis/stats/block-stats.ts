/**
 * Uncertainty of corpus-level error rates with clustered lines (docs/statistics.md): a block bootstrap for
 * intervals and a block permutation (sign-flip) test for p-values, both on the figure that is printed —
 * the ratio of summed edits to summed gold characters — never on a per-line proxy of it.
 *
 * Lines are grouped into clusters (analysis/stats/clusters.ts); per-cluster sums of edits and gold characters are
 * precomputed, so one resample is a sum over clusters (typed arrays; 10,000 resamples of ~200 clusters take
 * milliseconds). Strata (the datasets of a pooled figure) are resampled separately, each keeping its number of
 * clusters. Seeded with mulberry32 like every other interval of the analysis.
 *
 * - Interval: 2.5 % / 97.5 % percentiles (linear interpolation) of the resampled statistic.
 * - SE: standard deviation of the resampled ΔCER; minimum detectable effect at 80 % power, two-sided α = 0.05:
 *   MDE = (z₀.₉₇₅ + z₀.₈₀) · SE ≈ 2.80 · SE.
 * - Permutation p: under "the two arms are exchangeable", each cluster's two outputs are swapped with
 *   probability ½ (the sign of its edit difference flips); p = (1 + #{|T*| ≥ |T|}) / (1 + permutations), so an
 *   estimate of exactly 0 has p = 1 and p is never 0.
 * - Fewer than `minClusters` clusters (analysis/stats/min-clusters.ts): no interval, SE, detectable effect or p,
 *   with the reason; a zero SE gives no detectable effect either.
 */
import { quantileSorted, seedFor } from './bootstrap';
import { ARMS_AGREE, DEFAULT_MIN_CLUSTERS, tooFewClusters, ZERO_SE } from './min-clusters';
import { Mulberry32, MULBERRY_STEP } from './resample-rng';

/** z₀.₉₇₅ + z₀.₈₀: the minimum detectable effect at 80 % power (two-sided α = 0.05) is this times the SE. */
export const MDE_FACTOR = 1.959963984540054 + 0.8416212335729143;

/** Clusters of lines: cluster index per line and the stratum (dataset) of each cluster. */
export interface BlockDesign {
  block: Int32Array;
  stratumOfBlock: Int32Array;
}

export interface ResampleOptions {
  /** Bootstrap resamples. */
  iterations: number;
  /** Permutations of the test. */
  permutations: number;
  seed: number;
  /** Fewest clusters for an interval, p and detectable effect (default DEFAULT_MIN_CLUSTERS). */
  minClusters?: number;
}

export interface BlockDelta {
  /** CER(b) − CER(a) over all lines (pooled: Σ edits / Σ gold; macro: mean over strata of each stratum's ΔCER). */
  delta: number | null;
  ci95: [number, number] | null;
  /** Standard deviation of the resampled ΔCER. */
  se: number | null;
  /** Minimum detectable |ΔCER| at 80 % power, two-sided α = 0.05 (MDE_FACTOR · se). */
  mde: number | null;
  /** Two-sided block-permutation p of ΔCER = 0; null when there is no gold text. */
  p: number | null;
  iterations: number;
  permutations: number;
  clusters: number;
  /** Why ci95 / se / mde / p are null (too few clusters), or why mde is (a zero SE); null when all are given. */
  reason: string | null;
}

export interface PairedBlockResult {
  pooled: BlockDelta;
  /** Mean of the strata's ΔCER with its interval (null with one stratum or when not asked for). */
  macro: BlockDelta | null;
}

/**
 * Per stratum, the per-cluster values in the stratum's cluster order: a resample reads `values[g[⌊u·n⌋]]` as
 * `gathered[j][⌊u·n⌋]`, one load instead of two. The resampling loops below write mulberry32 out with its step a
 * local constant (analysis/stats/resample-rng.ts has it as a function): the same draws in the same order, about
 * twice as fast as calling it through the module (bench/resample-draws.ts). ⌊u·n⌋ is computed as
 * `(bits · (n / 2³²)) | 0`: n / 2³² and the product are exact in doubles, so it is the same index.
 */
function gathered(values: ArrayLike<number>, groups: Int32Array[]): Float64Array[] {
  return groups.map((g) => Float64Array.from(g, (b) => values[b]));
}

/** mulberry32's step (analysis/stats/resample-rng.ts MULBERRY_STEP), local to this module's loops. */
const STEP = MULBERRY_STEP;

/**
 * One block-bootstrap resample: in every stratum j, as many clusters as it has drawn uniformly with replacement,
 * `ref[j]` and `x[j]` (gathered per-cluster values) summed over them. mulberry32's draws are written out from state
 * `a` (see `gathered`); the cluster is ⌊draw · n⌋ of the stratum. Writes into `out`: [Σ ref, Σ x, Σ over strata of
 * Σx / Σref, 1 when every stratum's Σ ref > 0 (else 0)]; returns the state after the last draw.
 */
function resampleStrata(a: number, ref: Float64Array[], x: Float64Array[], out: Float64Array): number {
  let r = 0,
    e = 0,
    m = 0,
    ok = 1;
  for (let j = 0; j < ref.length; j++) {
    const [rg, xg] = [ref[j], x[j]];
    let rs = 0,
      xs = 0;
    const n = rg.length;
    const scale = n / 4294967296;
    for (let k = 0; k < n; k++) {
      a = (a + STEP) | 0;
      let t = Math.imul(a ^ (a >>> 15), a | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const c = (((t ^ (t >>> 14)) >>> 0) * scale) | 0;
      rs += rg[c];
      xs += xg[c];
    }
    r += rs;
    e += xs;
    if (rs > 0) m += xs / rs;
    else ok = 0;
  }
  out[0] = r;
  out[1] = e;
  out[2] = m;
  out[3] = ok;
  return a;
}

export function blockSums(values: ArrayLike<number>, d: BlockDesign): Float64Array {
  const out = new Float64Array(d.stratumOfBlock.length);
  for (let i = 0; i < values.length; i++) out[d.block[i]] += values[i];
  return out;
}

/** Block indices per stratum, strata 0 … S−1. */
export function strataBlocks(d: BlockDesign): Int32Array[] {
  const lists: number[][] = [];
  d.stratumOfBlock.forEach((s, b) => (lists[s] ??= []).push(b));
  return Array.from(lists, (l) => Int32Array.from(l ?? []));
}

function checkDesign(n: number, d: BlockDesign): void {
  if (d.block.length !== n) throw new Error(`block-stats: ${d.block.length} cluster ids for ${n} lines`);
}

export interface BlockRate {
  ci95: [number, number] | null;
  /** Why ci95 (and the macro's) is null: too few clusters; null otherwise. */
  reason: string | null;
  /** Mean over strata of each stratum's rate, with its interval; null with one stratum. */
  macro: { estimate: number | null; ci95: [number, number] | null } | null;
}

/** Block-bootstrap 95 % interval of Σ edits / Σ ref (per stratum resampling), and of the macro mean over strata. */
export function blockRateInterval(
  ref: ArrayLike<number>,
  edits: ArrayLike<number>,
  d: BlockDesign,
  iterations: number,
  seed: number,
  minClusters: number = DEFAULT_MIN_CLUSTERS,
): BlockRate {
  checkDesign(ref.length, d);
  const R = blockSums(ref, d);
  const E = blockSums(edits, d);
  const reason = tooFewClusters(R.length, minClusters);
  return resampledRate(R, E, strataBlocks(d), reason === null ? iterations : 0, new Mulberry32(seed), null, reason);
}

/**
 * The interval of Σ edits / Σ ref over `resamples` resamples of clusters within their strata, and of the macro
 * mean over strata. `drawEdits` gives the per-cluster edits of one resample (drawn with `rng` before its
 * clusters: a mix of an arm's replicates, ./replicate-stats.ts); null: the arm's own edits `E`, which
 * also give the macro estimate.
 */
export function resampledRate(
  R: Float64Array,
  E: ArrayLike<number>,
  groups: Int32Array[],
  resamples: number,
  rng: Mulberry32,
  drawEdits: (() => ArrayLike<number>) | null,
  reason: string | null,
): BlockRate {
  const withMacro = groups.length > 1;
  const draws = new Float64Array(resamples);
  const macroDraws = new Float64Array(withMacro ? resamples : 0);
  let valid = 0,
    validMacro = 0;
  let a = rng.state;
  const Rg = gathered(R, groups);
  const Eg = gathered(E, groups);
  const sums = new Float64Array(4);
  for (let it = 0; it < resamples; it++) {
    let edits = E;
    if (drawEdits) {
      rng.state = a;
      edits = drawEdits();
      a = rng.state;
    }
    a = resampleStrata(a, Rg, edits === E ? Eg : gathered(edits, groups), sums);
    if (sums[0] > 0) draws[valid++] = sums[1] / sums[0];
    if (withMacro && sums[3]) macroDraws[validMacro++] = sums[2] / groups.length;
  }
  const ci95 = valid > 0 ? percentiles(draws.subarray(0, valid)) : null;
  if (!withMacro) return { ci95, reason, macro: null };
  const rates = groups.map((g) => {
    const rs = g.reduce((x, k) => x + R[k], 0);
    return rs > 0 ? g.reduce((x, k) => x + E[k], 0) / rs : null;
  });
  const estimate = rates.some((x) => x === null) ? null : (rates as number[]).reduce((x, y) => x + y, 0) / rates.length;
  return { ci95, reason, macro: { estimate, ci95: validMacro > 0 ? percentiles(macroDraws.subarray(0, validMacro)) : null } };
}

export function percentiles(draws: Float64Array): [number, number] {
  const s = Float64Array.from(draws).sort();
  return [quantileSorted(s, 0.025), quantileSorted(s, 0.975)];
}

export function sd(xs: Float64Array): number | null {
  if (xs.length < 2) return null;
  let m = 0;
  for (const x of xs) m += x;
  m /= xs.length;
  let v = 0;
  for (const x of xs) v += (x - m) * (x - m);
  return Math.sqrt(v / (xs.length - 1));
}

/** Per-cluster sums of one paired comparison. */
interface PairSums {
  R: Float64Array;
  D: Float64Array;
  groups: Int32Array[];
  /** Σ ref per stratum. */
  stratumRef: Float64Array;
}

function pairSums(ref: ArrayLike<number>, a: ArrayLike<number>, b: ArrayLike<number>, d: BlockDesign): PairSums {
  checkDesign(ref.length, d);
  const R = blockSums(ref, d);
  const A = blockSums(a, d);
  const B = blockSums(b, d);
  const D = new Float64Array(R.length);
  for (let k = 0; k < D.length; k++) D[k] = B[k] - A[k];
  const groups = strataBlocks(d);
  const stratumRef = Float64Array.from(groups, (g) => g.reduce((s, k) => s + R[k], 0));
  return { R, D, groups, stratumRef };
}

/** Pooled and macro ΔCER of one resample (block multiplicities in `w`); null when a needed gold sum is 0. */
function statistics(s: PairSums, pick: (g: Int32Array, k: number) => number): { pooled: number | null; macro: number | null } {
  let r = 0,
    dd = 0,
    macro = 0,
    macroOk = true;
  for (const g of s.groups) {
    let rs = 0,
      ds = 0;
    for (let k = 0; k < g.length; k++) {
      const b = pick(g, k);
      rs += s.R[b];
      ds += s.D[b];
    }
    r += rs;
    dd += ds;
    if (rs > 0) macro += ds / rs;
    else macroOk = false;
  }
  return { pooled: r > 0 ? dd / r : null, macro: macroOk ? macro / s.groups.length : null };
}

/** What a block delta's figures are read against: the too-few-clusters reason, the permutations, whether the arms agree. */
export interface BlockDeltaContext {
  few: string | null;
  permutations: number;
  clusters: number;
  agree: boolean;
}

/** One block delta from its estimate, its bootstrap draws and its permutation p: interval, SE, detectable effect, reason. */
export function blockDelta(est: number | null, draws: Float64Array, p: number | null, c: BlockDeltaContext): BlockDelta {
  const se = sd(draws);
  return {
    delta: est,
    ci95: draws.length > 0 ? percentiles(draws) : null,
    se,
    mde: se === null || se === 0 ? null : MDE_FACTOR * se,
    p: est === null ? null : p,
    iterations: draws.length,
    permutations: c.few === null ? c.permutations : 0,
    clusters: c.clusters,
    reason: c.few ?? (se === 0 ? (c.agree ? ARMS_AGREE : ZERO_SE) : null),
  };
}

/**
 * Paired block bootstrap and block permutation test of ΔCER = CER(b) − CER(a). Both arrays of edits are per
 * line against the same gold lengths `ref`. With `macro`, the mean of the strata's ΔCER is measured too.
 */
export function pairedBlockDelta(
  ref: ArrayLike<number>,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  d: BlockDesign,
  opts: ResampleOptions,
  macro = false,
): PairedBlockResult {
  const s = pairSums(ref, a, b, d);
  const withMacro = macro && s.groups.length > 1;
  const observed = statistics(s, (g, k) => g[k]);
  const clusters = s.R.length;
  const few = tooFewClusters(clusters, opts.minClusters ?? DEFAULT_MIN_CLUSTERS);
  const iterations = few === null ? opts.iterations : 0;
  const boot = bootstrapDraws(s, iterations, opts.seed, withMacro);
  const perm =
    few === null
      ? permutationP(s, observed, opts.permutations, seedFor(opts.seed, 'permutation'), withMacro)
      : { pooled: null, macro: null };
  const agree = sameOnEveryLine(a, b);
  const context = { few, permutations: opts.permutations, clusters, agree };
  const result = (est: number | null, draws: Float64Array, p: number | null) => blockDelta(est, draws, p, context);
  return {
    pooled: result(observed.pooled, boot.pooled, perm.pooled),
    macro: withMacro ? result(observed.macro, boot.macro, perm.macro) : null,
  };
}

/**
 * The resampled pooled (and macro) ΔCER of `iterations` block-bootstrap resamples: `statistics` with each
 * cluster drawn uniformly within its stratum (mulberry32 written out: analysis/stats/resample-rng.ts). A resample whose
 * gold sum is 0 is left out.
 */
function bootstrapDraws(s: PairSums, iterations: number, seed: number, withMacro: boolean): { pooled: Float64Array; macro: Float64Array } {
  const pooled = new Float64Array(iterations);
  const macroDraws = new Float64Array(withMacro ? iterations : 0);
  const { groups } = s;
  const [Rg, Dg] = [gathered(s.R, groups), gathered(s.D, groups)];
  let nP = 0,
    nM = 0,
    a = seed | 0;
  const sums = new Float64Array(4);
  for (let it = 0; it < iterations; it++) {
    a = resampleStrata(a, Rg, Dg, sums);
    if (sums[0] > 0) pooled[nP++] = sums[1] / sums[0];
    if (withMacro && sums[3]) macroDraws[nM++] = sums[2] / groups.length;
  }
  return { pooled: pooled.subarray(0, nP), macro: macroDraws.subarray(0, nM) };
}

function sameOnEveryLine(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Sign-flip permutation p-values of the pooled (and macro) ΔCER: each cluster's difference flips with probability ½. */
function permutationP(
  s: PairSums,
  observed: { pooled: number | null; macro: number | null },
  permutations: number,
  seed: number,
  macro: boolean,
) {
  let a = seed | 0;
  const nStrata = s.groups.length;
  const totalRef = s.stratumRef.reduce((x, y) => x + y, 0);
  // Compare in the units of the sums (edits) with a tolerance far below one edit, so equal statistics tie exactly.
  const tol = (x: number) => Math.abs(x) * (1 - 1e-12);
  const tP = observed.pooled === null ? 0 : tol(observed.pooled * totalRef);
  const tM = observed.macro === null ? 0 : tol(observed.macro);
  const Dg = gathered(s.D, s.groups);
  let geP = 0,
    geM = 0;
  for (let it = 0; it < permutations; it++) {
    let pooled = 0,
      mac = 0;
    for (let g = 0; g < nStrata; g++) {
      const dg = Dg[g];
      let ds = 0;
      // A draw ≥ ½ (sign bit of its bits set) keeps the cluster's difference, one below ½ flips it: −2·(x >> 31) − 1
      // is +1 or −1 without a branch (analysis/stats/resample-rng.ts; mulberry32 written out, see `gathered`).
      for (let k = 0; k < dg.length; k++) {
        a = (a + STEP) | 0;
        let t = Math.imul(a ^ (a >>> 15), a | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        ds += dg[k] * (-2 * ((t ^ (t >>> 14)) >> 31) - 1);
      }
      pooled += ds;
      if (macro && s.stratumRef[g] > 0) mac += ds / s.stratumRef[g];
    }
    if (Math.abs(pooled) >= tP) geP++;
    if (macro && Math.abs(mac / nStrata) >= tM) geM++;
  }
  return {
    pooled: observed.pooled === null ? null : (1 + geP) / (1 + permutations),
    macro: macro && observed.macro !== null ? (1 + geM) / (1 + permutations) : null,
  };
}
