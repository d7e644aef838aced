/**
 * Paired statistics for comparing two arms line by line: a paired bootstrap of the
 * corpus-level ΔCER, an exact sign test, a Wilcoxon signed-rank test and Holm's step-down adjustment.
 * Pure functions over plain arrays; checked against scipy / statsmodels by test/analysis/stats/paired.test.ts
 * (fixture made by bench/python/paired_reference.py).
 *
 * Conventions (binding for arms.json):
 * - ΔCER = CER(b) − CER(a) with CER = Σ edits / Σ gold characters over the paired lines; negative = b better.
 * - The per-line differences the tests use are d_i = (edits_b − edits_a) / gold_chars_i over lines with a
 *   non-empty gold text, computed in one division so that equal ratios are equal doubles (exact ties).
 * - Sign test: ties (d = 0) dropped; two-sided exact binomial p with p₀ = ½ (= scipy.stats.binomtest).
 * - Wilcoxon: zero differences dropped before ranking (zero_method='wilcox'), average ranks for ties, normal
 *   approximation with the tie correction of the variance and a continuity correction of ½ toward 0
 *   (= scipy.stats.wilcoxon(d, zero_method='wilcox', correction=True, method='approx')).
 * - Holm: statsmodels.stats.multitest.multipletests(p, method='holm')[1]; null entries are left out of the family.
 */
import { bootstrapRates } from './bootstrap';

export interface PairedBootstrapOptions {
  iterations: number;
  seed: number;
  /** Stratum per line (e.g. dataset index): lines are resampled within their stratum. */
  strata?: ArrayLike<number>;
}

export interface PairedDelta {
  /** CER(b) − CER(a) on all lines; null when the gold text is empty throughout. */
  delta: number | null;
  /** 2.5 % / 97.5 % percentiles (numpy's linear quantile) of the resampled ΔCER; null without resamples. */
  ci95: [number, number] | null;
  /** Resamples kept (a resample whose gold length sums to 0 is dropped). */
  iterations: number;
}

/**
 * Paired percentile bootstrap of ΔCER over lines: each resample draws line indices with replacement
 * (mulberry32(seed), index = ⌊u · n⌋, per stratum in order of first appearance) and evaluates both
 * arms on the same lines. Same resampler as every other interval of the analysis (./bootstrap).
 */
export function pairedBootstrapDelta(
  goldChars: ArrayLike<number>,
  editsA: ArrayLike<number>,
  editsB: ArrayLike<number>,
  opts: PairedBootstrapOptions,
): PairedDelta {
  const r = bootstrapRates(goldChars, { a: editsA, b: editsB }, { d: ['a', 'b'] }, opts);
  const d = r.deltas.d;
  return { delta: d.estimate, ci95: d.ci95, iterations: r.iterations };
}

/** d_i = (b_i − a_i) / gold_i over the lines with gold_i > 0 (see the conventions above). */
export function lineDifferences(goldChars: ArrayLike<number>, editsA: ArrayLike<number>, editsB: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < goldChars.length; i++) {
    if (goldChars[i] > 0) out.push((editsB[i] - editsA[i]) / goldChars[i]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sign test
// ---------------------------------------------------------------------------------------------

export interface SignTest {
  /** Differences > 0 (b worse), < 0 (b better), = 0 (dropped). */
  positive: number;
  negative: number;
  ties: number;
  /** Two-sided exact p; null when every difference is a tie. */
  p: number | null;
}

export function signTest(d: readonly number[]): SignTest {
  let positive = 0,
    negative = 0,
    ties = 0;
  for (const x of d) {
    if (x > 0) positive++;
    else if (x < 0) negative++;
    else ties++;
  }
  const n = positive + negative;
  if (n === 0) return { positive, negative, ties, p: null };
  const k = Math.min(positive, negative);
  // With p₀ = ½ the distribution is symmetric: scipy's "as or less likely" rule gives 2·P(X ≤ min(k, n−k)).
  const p = 2 * k === n ? 1 : Math.min(1, 2 * binomialLowerTailHalf(k, n));
  return { positive, negative, ties, p };
}

/** P(X ≤ k) for X ~ Binomial(n, ½), k < n/2: pmf(k) · Σ_{i≤k} pmf(i)/pmf(k), summed from the small end. */
function binomialLowerTailHalf(k: number, n: number): number {
  const terms: number[] = [1];
  // pmf(i−1)/pmf(i) = i / (n − i + 1)
  for (let i = k; i > 0; i--) {
    const next = (terms[terms.length - 1] * i) / (n - i + 1);
    if (next < 1e-18) break;
    terms.push(next);
  }
  let sum = 0;
  for (let j = terms.length - 1; j >= 0; j--) sum += terms[j];
  const logPmf = logFactorial(n) - logFactorial(k) - logFactorial(n - k) - n * Math.LN2;
  return Math.exp(logPmf) * sum;
}

const LOG_FACTORIALS: number[] = (() => {
  const t = [0];
  for (let i = 1; i < 256; i++) t.push(t[i - 1] + Math.log(i));
  return t;
})();

/** ln n!: summed logs below 256, Stirling's series above (its truncation error is far below 1e-16 there). */
export function logFactorial(n: number): number {
  if (n < LOG_FACTORIALS.length) return LOG_FACTORIALS[n];
  const n2 = n * n;
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + 1 / (12 * n) - 1 / (360 * n * n2) + 1 / (1260 * n * n2 * n2);
}

// ---------------------------------------------------------------------------------------------
// Wilcoxon signed-rank test
// ---------------------------------------------------------------------------------------------

export interface WilcoxonTest {
  /** Non-zero differences ranked. */
  n: number;
  zeros: number;
  rPlus: number;
  rMinus: number;
  /** min(R+, R−), scipy's two-sided statistic. */
  statistic: number;
  /** Continuity-corrected z; null when n = 0. */
  z: number | null;
  p: number | null;
}

export function wilcoxonSignedRank(d: readonly number[]): WilcoxonTest {
  const nz = d.filter((x) => x !== 0);
  const zeros = d.length - nz.length;
  const n = nz.length;
  if (n === 0) return { n, zeros, rPlus: 0, rMinus: 0, statistic: 0, z: null, p: null };
  const { ranks, tieTerm } = averageRanks(nz.map(Math.abs));
  let rPlus = 0,
    rMinus = 0;
  nz.forEach((x, i) => (x > 0 ? (rPlus += ranks[i]) : (rMinus += ranks[i])));
  const mean = n * (n + 1) * 0.25;
  const se = Math.sqrt((n * (n + 1) * (2 * n + 1) - tieTerm / 2) / 24);
  const dev = rPlus - mean;
  // Same operation order as scipy: (R+ − mean)/se, then the continuity correction ½/se toward 0.
  const z = dev / se - (Math.sign(dev) * 0.5) / se;
  const p = se > 0 ? 2 * normalCdf(-Math.abs(z)) : 1;
  return { n, zeros, rPlus, rMinus, statistic: Math.min(rPlus, rMinus), z: se > 0 ? z : null, p };
}

/** Average ranks (1-based) of the values, and Σ (t³ − t) over groups of t tied values. */
function averageRanks(xs: number[]): { ranks: number[]; tieTerm: number } {
  const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b] || a - b);
  const ranks = new Array<number>(xs.length);
  let tieTerm = 0;
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && xs[order[j + 1]] === xs[order[i]]) j++;
    const t = j - i + 1;
    for (let k = i; k <= j; k++) ranks[order[k]] = (i + j) / 2 + 1;
    tieTerm += t * t * t - t;
    i = j + 1;
  }
  return { ranks, tieTerm };
}

/**
 * Standard normal CDF, Hart's double-precision approximation as given by West (2009), "Better approximations
 * to cumulative normal functions" (as in vega-statistics' cumulativeNormal) below |z| = 7.07, and a deeper
 * continued fraction beyond, so tiny tail probabilities keep their relative precision.
 */
export function normalCdf(z: number): number {
  const Z = Math.abs(z);
  let cd: number;
  if (Z > 37) cd = 0;
  else if (Z < 7.07106781186547) {
    const e = Math.exp((-Z * Z) / 2);
    let num = 3.52624965998911e-2 * Z + 0.700383064443688;
    num = num * Z + 6.37396220353165;
    num = num * Z + 33.912866078383;
    num = num * Z + 112.079291497871;
    num = num * Z + 221.213596169931;
    num = num * Z + 220.206867912376;
    let den = 8.83883476483184e-2 * Z + 1.75566716318264;
    den = den * Z + 16.064177579207;
    den = den * Z + 86.7807322029461;
    den = den * Z + 296.564248779674;
    den = den * Z + 637.333633378831;
    den = den * Z + 793.826512519948;
    den = den * Z + 440.413735824752;
    cd = (e * num) / den;
  } else {
    // Far tail: Laplace's continued fraction φ(Z) / (Z + 1/(Z + 2/(Z + …))), deep enough for full precision.
    let s = Z;
    for (let k = 60; k >= 1; k--) s = Z + k / s;
    cd = Math.exp((-Z * Z) / 2) / s / Math.sqrt(2 * Math.PI);
  }
  return z > 0 ? 1 - cd : cd;
}

// ---------------------------------------------------------------------------------------------
// Holm
// ---------------------------------------------------------------------------------------------

/**
 * Holm's step-down adjustment: sorted ascending, p_(j) · (m − j + 1), running maximum, capped at 1,
 * returned in input order. Null p-values stay null and do not count in m.
 */
export function holm(ps: ReadonlyArray<number | null>): Array<number | null> {
  const idx = ps.map((p, i) => [p, i] as const).filter((x): x is readonly [number, number] => x[0] !== null);
  idx.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const m = idx.length;
  const out: Array<number | null> = ps.map(() => null);
  let running = 0;
  idx.forEach(([p, i], j) => {
    running = Math.max(running, p * (m - j));
    out[i] = Math.min(1, running);
  });
  return out;
}
