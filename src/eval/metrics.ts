/**
 * Ranking metrics over a golden set: each query has a set of relevant corpus idx and a ranked list.
 *
 * - recall@k: share of queries with at least one relevant item in the top k (the "hit rate" — a line
 *   usually has one relevant unit, two when it spans a unit boundary, and one is enough to help).
 * - MRR@K: mean of 1 / rank of the first relevant item (0 when none in the top K).
 * - precision@k: mean over queries of (relevant items in the top k) / k (docs/retrieval.md#retrieval-evaluation).
 *   Bounded by |relevant| / k, so small at k = 10 by construction; compare configurations, not to 1.
 */

export interface RankedQuery {
  relevant: readonly number[];
  ranked: readonly number[];
}

export interface RankingMetrics {
  queries: number;
  recall: Record<string, number>;
  precision: Record<string, number>;
  mrr: number;
  /** K used for MRR (the longest cut-off). */
  mrr_at: number;
}

/** 1-based rank of the first relevant item, or null. */
export function firstRelevantRank(q: RankedQuery): number | null {
  const rel = new Set(q.relevant);
  const i = q.ranked.findIndex((x) => rel.has(x));
  return i < 0 ? null : i + 1;
}

export function rankingMetrics(queries: readonly RankedQuery[], ks: readonly number[]): RankingMetrics {
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1))
    throw new RangeError(`cut-offs must be positive integers, got ${JSON.stringify(ks)}`);
  const K = Math.max(...ks);
  const recall: Record<string, number> = {};
  const precision: Record<string, number> = {};
  const n = queries.length;
  for (const k of ks) {
    let hits = 0;
    let prec = 0;
    for (const q of queries) {
      const rel = new Set(q.relevant);
      const top = q.ranked.slice(0, k);
      const r = top.filter((x) => rel.has(x)).length;
      if (r > 0) hits++;
      prec += r / k;
    }
    recall[`@${k}`] = n ? hits / n : 0;
    precision[`@${k}`] = n ? prec / n : 0;
  }
  let mrr = 0;
  for (const q of queries) {
    const r = firstRelevantRank({ relevant: q.relevant, ranked: q.ranked.slice(0, K) });
    if (r !== null) mrr += 1 / r;
  }
  return { queries: n, recall, precision, mrr: n ? mrr / n : 0, mrr_at: K };
}
