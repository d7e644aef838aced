/**
 * Uncertainty of an arm's error rate over replicates (docs/statistics.md#replicates). The arm's rate is the mean
 * of its replicates' rates; its interval comes from a two-way bootstrap that resamples clusters of lines (within
 * each stratum, as analysis/block-stats.ts does) and, independently, the replicates: one resample is
 * Σ over drawn clusters of the mean edits of the drawn replicates / Σ gold characters of those clusters. Run-to-run
 * variation shared by all lines of one replicate (the server's batching, the seed) thus widens the interval,
 * which a bootstrap over clusters of the averaged lines would miss. The spread is also reported as the
 * between-replicate standard deviation of the replicates' rates.
 */
import { blockSums, percentiles, sd, strataBlocks, type BlockDesign, type BlockRate } from './block-stats';
import { mulberry32 } from './bootstrap';
import { DEFAULT_MIN_CLUSTERS, tooFewClusters } from './min-clusters';

/** Block × replicate bootstrap 95 % interval of the replicate-mean Σ edits / Σ ref, and of the macro mean over strata. */
export function replicateRateInterval(
  ref: ArrayLike<number>,
  editsByReplicate: readonly ArrayLike<number>[],
  d: BlockDesign,
  iterations: number,
  seed: number,
  minClusters: number = DEFAULT_MIN_CLUSTERS,
): BlockRate {
  const R = blockSums(ref, d);
  const reason = tooFewClusters(R.length, minClusters);
  const resamples = reason === null ? iterations : 0;
  const E = editsByReplicate.map((e) => blockSums(e, d));
  const nRep = E.length;
  const groups = strataBlocks(d);
  const withMacro = groups.length > 1;
  const rand = mulberry32(seed);
  const weights = new Float64Array(nRep);
  const mixed = new Float64Array(R.length);
  const draws = new Float64Array(resamples);
  const macroDraws = new Float64Array(withMacro ? resamples : 0);
  let valid = 0,
    validMacro = 0;
  for (let it = 0; it < resamples; it++) {
    weights.fill(0);
    for (let k = 0; k < nRep; k++) weights[Math.floor(rand() * nRep)] += 1 / nRep;
    mixed.fill(0);
    for (let r = 0; r < nRep; r++) if (weights[r] > 0) for (let b = 0; b < mixed.length; b++) mixed[b] += weights[r] * E[r][b];
    let r = 0,
      e = 0,
      m = 0,
      ok = true;
    for (const g of groups) {
      let rs = 0,
        es = 0;
      for (let k = 0; k < g.length; k++) {
        const b = g[Math.floor(rand() * g.length)];
        rs += R[b];
        es += mixed[b];
      }
      r += rs;
      e += es;
      if (rs > 0) m += es / rs;
      else ok = false;
    }
    if (r > 0) draws[valid++] = e / r;
    if (withMacro && ok) macroDraws[validMacro++] = m / groups.length;
  }
  const ci95 = valid > 0 ? percentiles(draws.subarray(0, valid)) : null;
  if (!withMacro) return { ci95, reason, macro: null };
  const rates = groups.map((g) => {
    const rs = g.reduce((x, k) => x + R[k], 0);
    if (rs === 0) return null;
    return E.reduce((x, Er) => x + g.reduce((y, k) => y + Er[k], 0), 0) / nRep / rs;
  });
  const estimate = rates.some((x) => x === null) ? null : (rates as number[]).reduce((x, y) => x + y, 0) / rates.length;
  return { ci95, reason, macro: { estimate, ci95: validMacro > 0 ? percentiles(macroDraws.subarray(0, validMacro)) : null } };
}

/** Each replicate's Σ edits / Σ ref, and their sample standard deviation (null with fewer than two or no gold). */
export function replicateSpread(
  ref: ArrayLike<number>,
  editsByReplicate: readonly ArrayLike<number>[],
): { rates: number[]; sd: number | null } {
  let total = 0;
  for (let i = 0; i < ref.length; i++) total += ref[i];
  if (total === 0) return { rates: [], sd: null };
  const rates = editsByReplicate.map((e) => {
    let s = 0;
    for (let i = 0; i < e.length; i++) s += e[i];
    return s / total;
  });
  return { rates, sd: sd(Float64Array.from(rates)) };
}
