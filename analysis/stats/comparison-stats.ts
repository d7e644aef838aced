/**
 * The intervals and p-values of comparison.json / comparison_vs_phase2.json (OCR / Phase 2 / Phase 5) with
 * clustered lines, in the shape of analysis/stats/bootstrap.ts's result: rates from a block bootstrap, each delta from
 * a paired block bootstrap with the block permutation p of that same delta (docs/statistics.md). Clusters as in
 * the arms analysis (analysis/stats/clusters.ts): a dataset's pages, else blocks of consecutive lines in file order.
 */
import { blockRateInterval, pairedBlockDelta, type BlockDesign } from './block-stats';
import { DEFAULT_PERMUTATIONS, seedFor, type DeltaInterval, type Interval } from './bootstrap';
import { clusterIds, DEFAULT_BLOCK_LINES, type ClusterSpec } from './clusters';
import { isSignificant } from './min-clusters';

/** How the comparison's lines cluster and how many permutations its test runs (config `analysis.*`). */
export interface Resampling {
  clusters?: ClusterSpec;
  permutations?: number;
  /** Fewest clusters for an interval, p and detectable effect (`analysis.min_clusters`; analysis/stats/min-clusters.ts). */
  minClusters?: number;
}

export interface ClusteredOptions extends Resampling {
  iterations: number;
  seed: number;
  /** Stratum per line (the dataset of a pooled table); one stratum when absent. */
  strata?: ArrayLike<number>;
  /** sample_id per line, in file order. */
  sampleIds: ArrayLike<string>;
  /** Dataset key per stratum (for its page pattern); absent = blocks of consecutive lines. */
  datasets?: readonly string[];
}

export interface ClusteredDelta extends DeltaInterval {
  se: number | null;
  mde: number | null;
  /** Why the interval, p or detectable effect is null (analysis/stats/min-clusters.ts); null when all are given. */
  reason: string | null;
}

export interface ClusteredResult {
  iterations: number;
  seed: number;
  n: number;
  clusters: number;
  /** Why the rates' intervals are null (too few clusters); null when they are given. */
  reason: string | null;
  rates: Record<string, Interval>;
  deltas: Record<string, ClusteredDelta>;
}

/** Clusters of the lines: per stratum (in order of first appearance), clusterIds of its sample ids. */
function design(o: ClusteredOptions): BlockDesign {
  const n = o.sampleIds.length;
  const spec = o.clusters ?? { blockLines: DEFAULT_BLOCK_LINES };
  const byStratum = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const s = o.strata ? o.strata[i] : 0;
    let l = byStratum.get(s);
    if (!l) byStratum.set(s, (l = []));
    l.push(i);
  }
  const block = new Int32Array(n);
  const stratumOfBlock: number[] = [];
  [...byStratum.entries()].forEach(([s, members], k) => {
    const { ids, count } = clusterIds(
      members.map((i) => o.sampleIds[i]),
      spec,
      o.datasets?.[s] ?? '',
    );
    const offset = stratumOfBlock.length;
    members.forEach((i, j) => (block[i] = offset + ids[j]));
    for (let c = 0; c < count; c++) stratumOfBlock.push(k);
  });
  return { block, stratumOfBlock: Int32Array.from(stratumOfBlock) };
}

const sum = (x: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s;
};

/**
 * Σ series / Σ ref per series with block-bootstrap CIs, and each delta `rates[b] − rates[a]` with CI, SE, MDE and
 * permutation p; `significant` = that p below α (analysis/stats/min-clusters.ts). With too few clusters, estimates only.
 */
export function clusteredRates(
  ref: ArrayLike<number>,
  series: Record<string, ArrayLike<number>>,
  deltas: Record<string, [string, string]>,
  o: ClusteredOptions,
): ClusteredResult {
  const d = design(o);
  const R = sum(ref);
  const estimate = (k: string) => (R > 0 ? sum(series[k]) / R : null);
  const rates: Record<string, Interval> = {};
  let reason: string | null = null;
  for (const k of Object.keys(series)) {
    const r = blockRateInterval(ref, series[k], d, o.iterations, seedFor(o.seed, `rate:${k}`), o.minClusters);
    rates[k] = { estimate: estimate(k), ci95: r.ci95 };
    reason = r.reason;
  }
  const out: Record<string, ClusteredDelta> = {};
  let iterations = o.iterations;
  for (const [name, [a, b]] of Object.entries(deltas)) {
    const r = pairedBlockDelta(ref, series[a], series[b], d, {
      iterations: o.iterations,
      permutations: o.permutations ?? DEFAULT_PERMUTATIONS,
      seed: seedFor(o.seed, `delta:${name}`),
      ...(o.minClusters !== undefined ? { minClusters: o.minClusters } : {}),
    }).pooled;
    const ea = rates[a].estimate,
      eb = rates[b].estimate;
    iterations = Math.min(iterations, r.iterations);
    out[name] = {
      estimate: ea === null || eb === null ? null : eb - ea,
      ci95: r.ci95,
      p_value: r.p,
      significant: isSignificant(r.p),
      se: r.se,
      mde: r.mde,
      reason: r.reason,
    };
  }
  return { iterations, seed: o.seed >>> 0, n: ref.length, clusters: d.stratumOfBlock.length, reason, rates, deltas: out };
}
