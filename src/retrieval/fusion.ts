/**
 * Fusing a dense and a lexical ranking (hybrid retrieval).
 *
 * - Reciprocal-rank fusion: Σ 1/(rrf_k + rank) over the lists an item appears in (Cormack et al. 2009,
 *   rrf_k = 60). Rank-based, so the two score scales never need calibrating. Reported scaled to [0, 1] by
 *   its maximum (rank 1 in every list).
 * - Weighted: w·cosine + (1 − w)·(BM25 / the query's best BM25); an item missing from a list scores 0
 *   there for BM25, and its true cosine (computed from its vector) for the dense side.
 */

export interface Ranked {
  idx: number;
  score: number;
}

export interface FusedItem {
  idx: number;
  /** Fused score in [0, 1]. */
  score: number;
  /** 1-based rank in each list, null when absent. */
  denseRank: number | null;
  lexicalRank: number | null;
}

export function reciprocalRankFusion(dense: readonly Ranked[], lexical: readonly Ranked[], rrfK = 60): FusedItem[] {
  if (!(rrfK >= 0)) throw new RangeError(`rrf_k must be ≥ 0, got ${rrfK}`);
  const items = new Map<number, FusedItem & { raw: number }>();
  const add = (list: readonly Ranked[], which: 'denseRank' | 'lexicalRank') => {
    list.forEach((r, i) => {
      let it = items.get(r.idx);
      if (!it) items.set(r.idx, (it = { idx: r.idx, score: 0, raw: 0, denseRank: null, lexicalRank: null }));
      if (it[which] !== null) return; // first occurrence counts
      it[which] = i + 1;
      it.raw += 1 / (rrfK + i + 1);
    });
  };
  add(dense, 'denseRank');
  add(lexical, 'lexicalRank');
  const max = 2 / (rrfK + 1);
  return [...items.values()].map(({ raw, ...it }) => ({ ...it, score: raw / max })).sort((a, b) => b.score - a.score || a.idx - b.idx);
}

/** `cosine` must hold the dense score of every item of both lists. */
export function weightedFusion(
  dense: readonly Ranked[],
  lexical: readonly Ranked[],
  cosine: ReadonlyMap<number, number>,
  denseWeight: number,
): FusedItem[] {
  if (!(denseWeight >= 0 && denseWeight <= 1)) throw new RangeError(`dense_weight must be in [0, 1], got ${denseWeight}`);
  const maxLex = lexical.reduce((m, r) => Math.max(m, r.score), 0);
  const lexNorm = new Map(lexical.map((r) => [r.idx, maxLex > 0 ? r.score / maxLex : 0]));
  const ids = new Set<number>([...dense.map((r) => r.idx), ...lexical.map((r) => r.idx)]);
  const denseRank = new Map(dense.map((r, i) => [r.idx, i + 1]));
  const lexRank = new Map(lexical.map((r, i) => [r.idx, i + 1]));
  return [...ids]
    .map((idx) => {
      const cos = cosine.get(idx);
      if (cos === undefined) throw new Error(`weighted fusion: no cosine for item ${idx}`);
      return {
        idx,
        score: denseWeight * cos + (1 - denseWeight) * (lexNorm.get(idx) ?? 0),
        denseRank: denseRank.get(idx) ?? null,
        lexicalRank: lexRank.get(idx) ?? null,
      };
    })
    .sort((a, b) => b.score - a.score || a.idx - b.idx);
}
