/** One query's candidates narrowed to its top k: dedup → rerank → MMR. */
import { childLogger } from '../util/log';
import { mmrSelect } from './mmr';
import type { Candidate, PipelineContext, PipelineStats } from './pipeline-types';
import type { Reranker } from './rerank';
import { dedupDigest } from './text';

const log = childLogger('retrieval');

/** One query's candidates → dedup → rerank → MMR → its top k. */
export async function selectTopK(ctx: PipelineContext, query: string, candidates: Candidate[], k: number): Promise<Candidate[]> {
  let cands = candidates;
  if (ctx.options.dedup) cands = dropDuplicates(cands, ctx.stats);
  if (ctx.reranker && cands.length > 0) cands = await rerankCandidates(ctx, ctx.reranker, query, cands);
  if (ctx.options.mmr.enabled && cands.length > k) cands = await diversify(ctx, cands, k);
  return cands.slice(0, k);
}

/** Drop candidates whose normalised text has the digest of a better-ranked one. */
function dropDuplicates(cands: Candidate[], stats: PipelineStats): Candidate[] {
  const seen = new Set<string>();
  const kept = cands.filter((c) => {
    const d = dedupDigest(c.text);
    if (seen.has(d)) return false;
    seen.add(d);
    return true;
  });
  stats.deduplicated += cands.length - kept.length;
  return kept;
}

/** Re-score with the reranker blended with the cosine; a failing reranker keeps the query's order. */
async function rerankCandidates(ctx: PipelineContext, reranker: Reranker, query: string, cands: Candidate[]): Promise<Candidate[]> {
  try {
    const rr = await reranker.score(
      query,
      cands.map((c) => c.text),
    );
    const w = ctx.options.rerank.embedding_weight;
    const scored = cands.map((c, j) => ({ ...c, rerank: rr[j], score: w * c.embedding + (1 - w) * rr[j] }));
    scored.sort((a, b) => b.score - a.score || a.idx - b.idx);
    return scored;
  } catch (err) {
    ctx.stats.rerankErrors++;
    log.warn({ err: (err as Error).message }, 'reranker failed for a query — keeping its retrieval order');
    return cands;
  }
}

/** MMR pick of k candidates, then ordered by score (ties by corpus idx). */
async function diversify(ctx: PipelineContext, cands: Candidate[], k: number): Promise<Candidate[]> {
  const vectors = ctx.vectors!;
  const vecs = await vectors.get(
    cands.map((c) => c.idx),
    cands.map((c) => c.text),
  );
  const picked = mmrSelect(
    cands.map((c) => c.score),
    vecs,
    vectors.dims,
    ctx.options.mmr.lambda,
    k,
  );
  return picked.map((p) => cands[p]).sort((a, b) => b.score - a.score || a.idx - b.idx);
}
