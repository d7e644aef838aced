/**
 * Uncertainty of an arm's error rate over replicates (docs/statistics.md#replicates). The arm's rate is the mean
 * of its replicates' rates; its interval comes from a two-way bootstrap that resamples clusters of lines (within
 * each stratum, as analysis/stats/block-stats.ts does) and, independently, the replicates: one resample is
 * Σ over drawn clusters of the mean edits of the drawn replicates / Σ gold characters of those clusters. Run-to-run
 * variation shared by all lines of one replicate (the server's batching, the seed) thus widens the interval,
 * which a bootstrap over clusters of the averaged lines would miss. The spread is also reported as the
 * between-replicate standard deviation of the replicates' rates.
 */
import { blockSums, resampledRate, sd, strataBlocks, type BlockDesign, type BlockRate } from './block-stats';
import { DEFAULT_MIN_CLUSTERS, tooFewClusters } from './min-clusters';
import { Mulberry32 } from './resample-rng';

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
  const rng = new Mulberry32(seed);
  const weights = new Float64Array(nRep);
  const mixed = new Float64Array(R.length);
  const mean = Float64Array.from(R, (_, b) => E.reduce((x, Er) => x + Er[b], 0) / nRep);
  // Each resample first draws nRep replicates with replacement, then the clusters (analysis/stats/block-stats.ts).
  const drawReplicates = () => {
    weights.fill(0);
    for (let k = 0; k < nRep; k++) weights[Math.floor(rng.next() * nRep)] += 1 / nRep;
    mixed.fill(0);
    for (let r = 0; r < nRep; r++) if (weights[r] > 0) for (let b = 0; b < mixed.length; b++) mixed[b] += weights[r] * E[r][b];
    return mixed;
  };
  return resampledRate(R, mean, strataBlocks(d), resamples, rng, drawReplicates, reason);
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
