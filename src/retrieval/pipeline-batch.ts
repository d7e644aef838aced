/** One call of the pipeline: script check → candidates → top k per query → context window → budget. */
import { arabicShare } from '../text/arabic';
import { effectiveFetchK } from './config';
import type { NeighbourSource } from './neighbours';
import { candidatesFor } from './pipeline-candidates';
import { fitBudget } from './pipeline-prompt';
import { selectTopK } from './pipeline-select';
import type { Candidate, PipelineChunk, PipelineContext, PipelineStats } from './pipeline-types';
import type { CorpusStore } from './store';

export async function retrieveBatch(
  ctx: PipelineContext,
  queries: readonly string[],
  k?: number,
  minScore?: number,
): Promise<PipelineChunk[][]> {
  const { base, options, stats } = ctx;
  const kk = k ?? base.config?.topK ?? 3;
  const min = minScore ?? base.config?.minScore ?? 0;
  if (!Number.isInteger(kk) || kk < 1) throw new Error(`k must be a positive integer, got ${kk}`);
  stats.queries += queries.length;
  const results: PipelineChunk[][] = queries.map(() => []);
  const todo = queriesInScript(queries, options.min_arabic_share, stats);
  if (todo.length === 0) return results;
  const fetchK = effectiveFetchK(options, kk);
  const texts = todo.map((i) => queries[i].trim());
  const lists = await candidatesFor(ctx, texts, fetchK, min);
  for (let qi = 0; qi < lists.length; qi++) lists[qi] = await selectTopK(ctx, texts[qi], lists[qi], kk);
  const chunks = toChunks(lists, ctx.store);
  if (ctx.neighbours) await attachContext(ctx, ctx.neighbours, chunks);
  chunks.forEach((list, j) => {
    results[todo[j]] = fitBudget(ctx, list);
  });
  return results;
}

/** Indexes of the queries to retrieve for: non-empty, with at least `minShare` Arabic letters; the rest are counted as skipped. */
function queriesInScript(queries: readonly string[], minShare: number, stats: PipelineStats): number[] {
  const todo: number[] = [];
  queries.forEach((q, i) => {
    if (typeof q === 'string' && q.trim() && arabicShare(q) >= minShare) todo.push(i);
    else stats.skippedScript++;
  });
  return todo;
}

function toChunks(lists: Candidate[][], store: CorpusStore | null): PipelineChunk[][] {
  return lists.map((list) =>
    list.map((c) => ({
      text: c.text,
      source_uri: c.source_uri,
      score: Math.min(1, Math.max(0, c.score)),
      rank: 0,
      idx: c.idx,
      date: c.date,
      line: store?.lines[c.idx] ?? null,
      embedding_score: c.embedding,
      lexical_score: c.lexical,
      rerank_score: c.rerank,
      context: null,
    })),
  );
}

/** Neighbouring source lines for every hit of the call, in one batched lookup. */
async function attachContext(ctx: PipelineContext, neighbours: NeighbourSource, chunks: PipelineChunk[][]): Promise<void> {
  const flat = chunks.flat();
  const found = await neighbours.lookup(
    flat.map((c) => ({ idx: c.idx, source_uri: c.source_uri, text: c.text, line: c.line })),
    ctx.options.context_window.lines,
  );
  flat.forEach((c, i) => {
    const n = found[i];
    c.context = { before: n.before, after: n.after, problem: n.problem };
    if (n.line !== null) c.line = n.line;
    if (n.problem) ctx.stats.contextProblems++;
  });
}
