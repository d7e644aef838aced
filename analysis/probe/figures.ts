/**
 * The probe's figures with their uncertainty: a share or rate over probe texts, Σ numerator / Σ denominator, with
 * the 95 % interval of the block bootstrap the study's figures use (../stats/block-stats.ts) — the texts' clusters
 * resampled, one stratum. Fewer clusters than `analysis.min_clusters`: the estimate alone, with the reason.
 */
import type { ProbeRecord } from '../../src/stages/probe/types';
import { blockRateInterval } from '../stats/block-stats';

export interface Resampling {
  iterations: number;
  seed: number;
  minClusters: number;
}

export interface ShareFigure {
  estimate: number | null;
  ci95: [number, number] | null;
  units: number;
  clusters: number;
  /** Why ci95 is null (too few clusters), or null. */
  reason: string | null;
}

export function blockShare(
  records: readonly ProbeRecord[],
  num: (r: ProbeRecord) => number,
  den: (r: ProbeRecord) => number,
  rs: Resampling,
): ShareFigure {
  const ids = new Map<number, number>();
  const block = Int32Array.from(records, (r) => {
    if (!ids.has(r.cluster)) ids.set(r.cluster, ids.size);
    return ids.get(r.cluster)!;
  });
  const ref = records.map(den);
  const hits = records.map(num);
  const total = ref.reduce((a, b) => a + b, 0);
  const estimate = total > 0 ? hits.reduce((a, b) => a + b, 0) / total : null;
  if (records.length === 0) return { estimate, ci95: null, units: 0, clusters: 0, reason: 'no probe texts' };
  const b = blockRateInterval(ref, hits, { block, stratumOfBlock: new Int32Array(ids.size) }, rs.iterations, rs.seed, rs.minClusters);
  return { estimate, ci95: b.ci95, units: records.length, clusters: ids.size, reason: b.reason };
}

/** The continuation test's two figures: the share continued with CER ≤ the verbatim threshold, and the CER (Σ edits / Σ rest characters). */
export function continuationFigures(records: readonly ProbeRecord[], rs: Resampling) {
  const share = blockShare(
    records,
    (r) => (r.verbatim ? 1 : 0),
    () => 1,
    rs,
  );
  const cer = blockShare(
    records,
    (r) => r.edits,
    (r) => r.rest_chars,
    rs,
  );
  return {
    verbatim_share: share.estimate,
    verbatim_share_ci95: share.ci95,
    cer: cer.estimate,
    cer_ci95: cer.ci95,
    units: share.units,
    clusters: share.clusters,
    reason: share.reason,
  };
}

export type ContinuationFigures = ReturnType<typeof continuationFigures>;
