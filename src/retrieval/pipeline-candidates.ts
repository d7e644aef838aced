/** A call's candidates: the dense hits, and with hybrid on the lexical hits fused with them (RRF or weights). */
import { reciprocalRankFusion, weightedFusion, type FusedItem, type Ranked } from './fusion';
import type { LexicalHit } from './lexical-index';
import type { Candidate, PipelineContext } from './pipeline-types';

export async function candidatesFor(ctx: PipelineContext, queries: string[], fetchK: number, minScore: number): Promise<Candidate[][]> {
  const dense = await ctx.base.retrieveMany(queries, fetchK, minScore);
  const lists: Candidate[][] = dense.map((hits) =>
    hits.map((h) => ({
      idx: h.idx,
      text: h.text,
      source_uri: h.source_uri,
      date: h.date,
      embedding: h.score,
      lexical: null,
      rerank: null,
      score: h.score,
    })),
  );
  if (!ctx.lexical) return lists;
  // Hybrid: lexical top fetch_k per query, cosines for candidates the dense side did not return.
  const lexical = ctx.lexical;
  const lex = queries.map((q) => lexical.search(q, fetchK));
  const cos = await lexicalOnlyCosines(ctx, queries, lists, lex);
  return lists.map((list, q) => fuseCandidates(ctx, list, lex[q], (idx) => cos.get(`${q}:${idx}`)!, fetchK, minScore));
}

/** Cosine to its query of every lexical hit the dense side did not return, keyed `query:idx`. */
async function lexicalOnlyCosines(
  ctx: PipelineContext,
  queries: string[],
  lists: Candidate[][],
  lex: LexicalHit[][],
): Promise<Map<string, number>> {
  const missing: { q: number; idx: number }[] = [];
  lex.forEach((hits, q) => {
    const have = new Set(lists[q].map((c) => c.idx));
    for (const h of hits) if (!have.has(h.idx)) missing.push({ q, idx: h.idx });
  });
  ctx.stats.lexicalOnlyCandidates += missing.length;
  const cos = new Map<string, number>();
  if (missing.length) {
    const qv = await ctx.embedQueries!(queries);
    const dims = qv.length / queries.length;
    const cv = await ctx.vectors!.get(
      missing.map((m) => m.idx),
      missing.map((m) => ctx.store!.texts[m.idx]),
    );
    missing.forEach((m, i) => {
      let dot = 0;
      for (let j = 0; j < dims; j++) dot += qv[m.q * dims + j] * cv[i * dims + j];
      cos.set(`${m.q}:${m.idx}`, Math.min(1, Math.max(0, dot)));
    });
  }
  return cos;
}

/** One query's dense and lexical candidates fused (RRF or weights) into its top fetch_k. */
function fuseCandidates(
  ctx: PipelineContext,
  list: Candidate[],
  lexHits: LexicalHit[],
  lexicalOnlyCosine: (idx: number) => number,
  fetchK: number,
  minScore: number,
): Candidate[] {
  const { options, store } = ctx;
  const denseRanked: Ranked[] = list.map((c) => ({ idx: c.idx, score: c.embedding }));
  const maxLex = lexHits.reduce((m, h) => Math.max(m, h.score), 0);
  const lexNorm = new Map(lexHits.map((h) => [h.idx, maxLex > 0 ? h.score / maxLex : 0]));
  const cosine = new Map<number, number>(list.map((c) => [c.idx, c.embedding]));
  for (const h of lexHits) if (!cosine.has(h.idx)) cosine.set(h.idx, lexicalOnlyCosine(h.idx));
  // Threshold retrieval applies to every candidate's cosine, whichever side found it.
  const lexRanked: Ranked[] = lexHits.filter((h) => cosine.get(h.idx)! >= minScore).map((h) => ({ idx: h.idx, score: h.score }));
  const fused: FusedItem[] =
    options.hybrid.fusion === 'rrf'
      ? reciprocalRankFusion(denseRanked, lexRanked, options.hybrid.rrf_k)
      : weightedFusion(denseRanked, lexRanked, cosine, options.hybrid.dense_weight);
  const byIdx = new Map(list.map((c) => [c.idx, c]));
  return fused.slice(0, fetchK).map((f) => {
    const d = byIdx.get(f.idx);
    const lexScore = lexNorm.get(f.idx) ?? 0;
    if (d) return { ...d, lexical: lexScore, score: f.score };
    return {
      idx: f.idx,
      text: store!.texts[f.idx],
      source_uri: store!.uris[f.idx],
      date: store!.dates[f.idx],
      embedding: cosine.get(f.idx)!,
      lexical: lexScore,
      rerank: null,
      score: f.score,
    };
  });
}
