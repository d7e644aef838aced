/**
 * The retrieval pipeline: configuration of the one retriever, every stage off by default.
 *
 *   const p = await createRetrievalPipeline(retriever, options);   // retriever: RAGRetriever (or alike)
 *   const hits = await p.retrieveMany(ocrLines, k, minScore);       // same signature as RAGRetriever
 *   const context = p.formatForPrompt(hits[0], 'numbered_arabic');
 *
 * Stages, in order, for each query:
 *   script check (share of Arabic letters ≥ min_arabic_share, else no retrieval)
 *   → dense candidates: fetch_k by cosine, threshold min_score (docs/retrieval.md#retriever-options)
 *   → [hybrid] + BM25 char-n-gram candidates, fused by RRF or weights
 *   → [dedup] drop hits whose normalised text has the SHA-256 of a better hit
 *   → [rerank] score = w·cosine + (1 − w)·reranker (lexical, or an ONNX cross-encoder; unusable model →
 *     order kept, reason in `status`)
 *   → [mmr] pick k for diversity (λ), then order the picked set by score
 *   → top k → [context window] ± n source lines per hit, one batched lookup per call
 *   → [budget] keep hits in order while their prompt text fits max_chars / max_tokens.
 * With every option off the output equals the base retriever's (same hits, scores and ranks). Every
 * stage is deterministic (ties broken by corpus idx), so an export resumed after a crash writes the
 * same records.
 */
import { DEFAULT_MAX_CHUNK_CHARS } from '../prompts/context';
import { sha256Text } from '../util/hash';
import { resolvePipelineOptions, type RetrievalPipelineInput, type RetrievalPipelineOptions } from './config';
import { retrieveBatch } from './pipeline-batch';
import { formatContext, promptTextFor } from './pipeline-prompt';
import { buildLexicalIndex, neighbourSource, openReranker, openStore, openVectors, queryEmbedder, tokenCounter } from './pipeline-setup';
import type { BaseRetriever, PipelineContext, PipelineDeps, PipelineStats, RetrievalPipeline } from './pipeline-types';

export type { BaseRetriever, PipelineChunk, PipelineDeps, PipelineStats, RetrievalPipeline } from './pipeline-types';
export { formatCitations, windowText } from './pipeline-prompt';

/** Open what the enabled stages need (store, lexical index, vectors, reranker, neighbours, token counter) and return the pipeline. */
export async function createRetrievalPipeline(
  base: BaseRetriever,
  input: RetrievalPipelineInput | RetrievalPipelineOptions = {},
  deps: PipelineDeps = {},
): Promise<RetrievalPipeline> {
  const options = resolvePipelineOptions(input as RetrievalPipelineInput);
  const store = await openStore(base, options, deps);
  const lexical = buildLexicalIndex(options, deps, store);
  const { vectors, ownsVectors } = openVectors(base, options, deps);
  const embedQueries = queryEmbedder(base, options, deps);
  const { reranker, ownsReranker, rerankStatus } = await openReranker(options, deps);
  const neighbours = neighbourSource(options, deps, store);
  const countTokens = tokenCounter(base, options, deps);

  const maxChars = deps.maxChunkChars ?? base.config?.maxChunkChars ?? DEFAULT_MAX_CHUNK_CHARS;
  const windowChars = options.context_window.max_chars ?? maxChars * (2 * options.context_window.lines + 1);
  const fingerprint = sha256Text(JSON.stringify({ options, reranker: reranker?.identity ?? null, maxChars }));
  const stats: PipelineStats = {
    queries: 0,
    skippedScript: 0,
    deduplicated: 0,
    lexicalOnlyCandidates: 0,
    droppedByBudget: 0,
    contextProblems: 0,
    rerankErrors: 0,
  };
  const promptText = promptTextFor(maxChars, windowChars);
  const ctx: PipelineContext = {
    base,
    options,
    store,
    lexical,
    vectors,
    embedQueries,
    reranker,
    neighbours,
    countTokens,
    promptText,
    stats,
  };
  const retrieveMany = (queries: readonly string[], k?: number, minScore?: number) => retrieveBatch(ctx, queries, k, minScore);

  return {
    options,
    rerankStatus,
    fingerprint,
    retrieve: async (q, k, minScore) => (await retrieveMany([q], k, minScore))[0],
    retrieveMany,
    formatForPrompt: (chunks, style = base.config?.formatStyle ?? 'numbered_arabic') =>
      formatContext(chunks, style, options.citations, promptText),
    stats: () => ({ ...stats }),
    async close() {
      if (ownsReranker) await reranker?.close();
      if (ownsVectors) vectors?.close();
    },
  };
}
