/**
 * When a figure's uncertainty is measured at all (docs/statistics.md "Too few clusters"): the block bootstrap,
 * the block permutation test and the detectable effect need at least `analysis.min_clusters` clusters of
 * lines (default 10). Below that the estimate is still given; its interval, p and detectable effect are null
 * with a reason. Both analyses (comparison.json and arms.json) ask this one function.
 *
 * `significant` means one thing everywhere: the primary test's p below α (two-sided α = 0.05); it is null
 * where there is no p.
 */

/** Fewest clusters for an interval, a p-value and a detectable effect (config `analysis.min_clusters`). */
export const DEFAULT_MIN_CLUSTERS = 10;

/** Two-sided level of every test and interval of the analysis. */
export const ALPHA = 0.05;

/** Why a detectable effect is not given when the standard error is 0 because both arms are the same. */
export const ARMS_AGREE = 'the arms agree on every line';

/** Why a detectable effect is not given when the standard error is 0 for another reason. */
export const ZERO_SE = 'standard error 0: no detectable effect can be derived';

/** The reason the uncertainty of a figure over `clusters` clusters is not measured, or null when it is. */
export function tooFewClusters(clusters: number, minClusters: number = DEFAULT_MIN_CLUSTERS): string | null {
  return clusters < minClusters ? `too few clusters: ${clusters} (at least ${minClusters})` : null;
}

/** p below α; null where there is no p (so never true at p ≥ α, never set without a p). */
export function isSignificant(p: number | null | undefined, alpha: number = ALPHA): boolean | null {
  return p === null || p === undefined || !Number.isFinite(p) ? null : p < alpha;
}

const FEW = /^too few clusters: (\d+) \(at least (\d+)\)$/;

/** Every `reason` / `ci_reason` string in a document (its figures' reasons for a missing interval). */
export function reasonsIn(doc: unknown, out: string[] = []): string[] {
  if (Array.isArray(doc)) for (const x of doc) reasonsIn(x, out);
  else if (doc !== null && typeof doc === 'object')
    for (const [k, v] of Object.entries(doc)) {
      if ((k === 'reason' || k === 'ci_reason') && typeof v === 'string') out.push(v);
      else reasonsIn(v, out);
    }
  return out;
}

/**
 * The one warning line of a stage output some of whose figures have too few clusters for an interval, or null
 * when none has: how many figures, their range of clusters and the minimum.
 */
export function fewClustersWarning(output: string, reasons: Iterable<string | null | undefined>): string | null {
  const few = [...reasons].flatMap((r) => {
    const m = r ? FEW.exec(r) : null;
    return m ? [[Number(m[1]), Number(m[2])]] : [];
  });
  if (few.length === 0) return null;
  const lo = Math.min(...few.map((f) => f[0]));
  const hi = Math.max(...few.map((f) => f[0]));
  const range = lo === hi ? `${lo}` : `${lo}–${hi}`;
  return (
    `${output}: ${few.length} figure(s) over too few clusters of lines (${range}; at least ${few[0][1]}) have no confidence ` +
    'interval, p-value or detectable effect: their estimates are given alone (analysis.min_clusters, docs/statistics.md)'
  );
}
