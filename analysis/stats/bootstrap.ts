/**
 * Paired bootstrap confidence intervals for corpus-level error rates (summed edits / summed reference
 * length) with a seeded PRNG, so every run on the same inputs gives the same intervals.
 *
 * Lines are resampled with replacement; every series (OCR, zero_shot, rag, …) is evaluated on the same
 * resample, which makes the differences paired.
 */
import { mulberry32 } from '../../src/util/random';

/** The seeded PRNG the resampling uses (src/util/random.ts; also the placebo's). */
export { mulberry32 };

/** Resamples and seed when the config gives none (config `analysis.bootstrap_iterations` / `bootstrap_seed`). */
export const DEFAULT_BOOTSTRAP = { iterations: 10000, seed: 42 } as const;

/** Permutations of the arms' block permutation test when none are given (config `analysis.permutations`). */
export const DEFAULT_PERMUTATIONS = 10000;

/** Derive a per-key seed (FNV-1a of the key mixed with the base seed) so adding a dataset leaves others unchanged. */
export function seedFor(base: number, key: string): number {
  let h = 0x811c9dc5 ^ (base >>> 0);
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Quantile of sorted values with linear interpolation (R type 7, numpy's default). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export interface Interval {
  /** The statistic on the full sample. */
  estimate: number | null;
  /** 2.5 % and 97.5 % bootstrap percentiles. */
  ci95: [number, number] | null;
}

export interface DeltaInterval extends Interval {
  /** Two-sided bootstrap p-value for "delta = 0" (2 · share of resamples on the far side of 0, capped at 1). */
  p_value: number | null;
  /** True when the 95 % interval excludes 0. */
  significant: boolean | null;
}

export interface BootstrapOptions {
  iterations: number;
  seed: number;
  /** Stratum per line (e.g. dataset index): lines are resampled within their stratum, keeping its size. */
  strata?: ArrayLike<number>;
}

export interface BootstrapResult {
  iterations: number;
  seed: number;
  n: number;
  rates: Record<string, Interval>;
  /** Each delta is `rates[b] − rates[a]` for the pair [a, b]. */
  deltas: Record<string, DeltaInterval>;
}

/**
 * Bootstrap the ratio Σ series / Σ ref for every series, and the paired differences named in `deltas`.
 * All arrays are per line and must have the same length.
 */
export function bootstrapRates(
  ref: ArrayLike<number>,
  series: Record<string, ArrayLike<number>>,
  deltas: Record<string, [string, string]>,
  opts: BootstrapOptions,
): BootstrapResult {
  const n = ref.length;
  const names = Object.keys(series);
  checkShapes(n, series, deltas);
  const estimates: Record<string, number | null> = {};
  for (const k of names) estimates[k] = pooledRate(series[k], ref);
  const { draws, valid } = resampleRates(ref, series, Math.max(0, Math.floor(opts.iterations)), opts);
  const rates: Record<string, Interval> = {};
  for (const k of names) {
    rates[k] = { estimate: estimates[k], ci95: valid > 0 ? percentileInterval(draws[k].slice(0, valid).sort()) : null };
  }
  const deltaOut: Record<string, DeltaInterval> = {};
  for (const [name, [a, b]] of Object.entries(deltas)) {
    deltaOut[name] = deltaInterval(estimates[a], estimates[b], draws[a], draws[b], valid);
  }
  return { iterations: valid, seed: opts.seed >>> 0, n, rates, deltas: deltaOut };
}

function checkShapes(n: number, series: Record<string, ArrayLike<number>>, deltas: Record<string, [string, string]>): void {
  for (const k of Object.keys(series)) {
    if (series[k].length !== n) throw new Error(`bootstrap: series "${k}" has ${series[k].length} values, expected ${n}`);
  }
  for (const [d, [a, b]] of Object.entries(deltas)) {
    if (!(a in series) || !(b in series)) throw new Error(`bootstrap: delta "${d}" names unknown series ${a} / ${b}`);
  }
}

/** Σ series / Σ ref over all lines (null for an empty reference). */
function pooledRate(s: ArrayLike<number>, ref: ArrayLike<number>): number | null {
  let e = 0,
    r = 0;
  for (let i = 0; i < ref.length; i++) {
    e += s[i];
    r += ref[i];
  }
  return r > 0 ? e / r : null;
}

/** The 2.5 % and 97.5 % percentiles of sorted draws. */
function percentileInterval(sorted: ArrayLike<number>): [number, number] {
  return [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)];
}

/**
 * Each series' rate on `iterations` resamples (all series on the same resample); `valid` = resamples
 * kept, the first `valid` entries of each draw array.
 */
function resampleRates(
  ref: ArrayLike<number>,
  series: Record<string, ArrayLike<number>>,
  iterations: number,
  opts: BootstrapOptions,
): { draws: Record<string, Float64Array>; valid: number } {
  const n = ref.length;
  const names = Object.keys(series);
  const draws: Record<string, Float64Array> = {};
  for (const k of names) draws[k] = new Float64Array(iterations);
  if (n === 0 || iterations === 0) return { draws, valid: 0 };
  let valid = 0;
  const rand = mulberry32(opts.seed);
  const sums = new Float64Array(names.length);
  // Typed copies keep the inner loop monomorphic (inputs may be plain arrays or Arquero columns).
  const cols = names.map((k) => Float64Array.from(series[k]));
  const refs = Float64Array.from(ref);
  const nc = cols.length;
  const groups = strataMembers(n, opts.strata);
  for (let it = 0; it < iterations; it++) {
    sums.fill(0);
    let r = 0;
    for (const members of groups) {
      const size = members.length;
      for (let k = 0; k < size; k++) {
        const idx = members[Math.floor(rand() * size)];
        r += refs[idx];
        for (let s = 0; s < nc; s++) sums[s] += cols[s][idx];
      }
    }
    // A resample with an empty reference has no rate; it is dropped (only possible with empty gold lines).
    if (r === 0) continue;
    for (let s = 0; s < names.length; s++) draws[names[s]][valid] = sums[s] / r;
    valid++;
  }
  return { draws, valid };
}

/** Interval of `b − a` from the paired draws; the p-value counts resamples on either side of 0. */
function deltaInterval(ea: number | null, eb: number | null, da: Float64Array, db: Float64Array, valid: number): DeltaInterval {
  const est = ea === null || eb === null ? null : eb - ea;
  if (valid === 0) return { estimate: est, ci95: null, p_value: null, significant: null };
  const d = new Float64Array(valid);
  let le = 0,
    ge = 0;
  for (let i = 0; i < valid; i++) {
    d[i] = db[i] - da[i];
    if (d[i] <= 0) le++;
    if (d[i] >= 0) ge++;
  }
  d.sort();
  const ci = percentileInterval(d);
  return {
    estimate: est,
    ci95: ci,
    p_value: Math.min(1, (2 * Math.min(le, ge)) / valid),
    significant: ci[0] > 0 || ci[1] < 0,
  };
}

/** Line indices per stratum, strata in order of first appearance (one group of all lines by default). */
function strataMembers(n: number, strata?: ArrayLike<number>): Int32Array[] {
  if (!strata) return [Int32Array.from({ length: n }, (_, i) => i)];
  if (strata.length !== n) throw new Error(`bootstrap: ${strata.length} strata for ${n} lines`);
  const byKey = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    let l = byKey.get(strata[i]);
    if (!l) byKey.set(strata[i], (l = []));
    l.push(i);
  }
  return [...byKey.values()].map((l) => Int32Array.from(l));
}
