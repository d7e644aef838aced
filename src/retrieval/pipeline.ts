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
import { existsSync } from 'node:fs';
import { type Embedder, normalizeRows } from '../embed/embedder';
import { TextTokenizer } from '../embed/tokenizer';
import type { IndexManifest } from '../index/manifest';
import { indexFiles } from '../index/manifest';
import { CONTEXT_HEADER, DEFAULT_MAX_CHUNK_CHARS, truncateForPrompt, type FormatStyle, type RetrievedChunk } from '../index/retriever';
import { arabicShare } from '../text/arabic';
import { sha256Text } from '../util/hash';
import { childLogger } from '../util/log';
import { codePointCount, mergeWithinBudget } from './budget';
import { effectiveFetchK, resolvePipelineOptions, type RetrievalPipelineInput, type RetrievalPipelineOptions } from './config';
import { reciprocalRankFusion, weightedFusion, type FusedItem, type Ranked } from './fusion';
import { LexicalIndex, type LexicalHit } from './lexical-index';
import { mmrSelect } from './mmr';
import { CorpusNeighbours, OpenITINeighbours, type NeighbourSource } from './neighbours';
import { loadReranker, type Reranker, type RerankerStatus } from './rerank';
import { loadCorpusStore, type CorpusStore } from './store';
import { dedupDigest } from './text';
import { EmbedderVectors, vectorStoreFor, type VectorStore } from './vectors';

const log = childLogger('retrieval');

export interface PipelineChunk extends RetrievedChunk {
  /** Physical line of the sentence in its source file (1-based), when the corpus or the lookup knows it. */
  line: number | null;
  /** Cosine similarity to the query (what `score` is when no stage re-scores). */
  embedding_score: number;
  /** BM25 / the query's best BM25, in [0, 1] (hybrid only; 0 when the lexical side missed it). */
  lexical_score: number | null;
  /** Reranker score in [0, 1] (rerank only). */
  rerank_score: number | null;
  /** Neighbouring source lines (context window only). */
  context: { before: string[]; after: string[]; problem: string | null } | null;
}

/** What the pipeline needs from the base retriever (RAGRetriever satisfies it). */
export interface BaseRetriever {
  retrieveMany(queries: readonly string[], k?: number, minScore?: number): Promise<RetrievedChunk[][]>;
  readonly model?: Embedder | null;
  readonly manifest?: IndexManifest | null;
  readonly config?: {
    indexPath?: string;
    corpusPath?: string;
    maxChunkChars?: number;
    topK?: number;
    minScore?: number;
    formatStyle?: FormatStyle;
  };
}

export interface PipelineDeps {
  /** Corpus texts/URIs/lines (default: config.corpusPath, else the index's sentence list). Needed by hybrid and context windows from the corpus. */
  store?: CorpusStore;
  /** Candidate vectors (default: the exact index's matrix file, or re-embedding for HNSW). */
  vectors?: VectorStore | null;
  /** Query vectors for cosines of lexical-only candidates (default: the base retriever's model). */
  embedQueries?: (queries: string[]) => Promise<Float32Array>;
  neighbours?: NeighbourSource;
  /** Use this reranker instead of loading the configured one. */
  reranker?: Reranker | null;
  /** Prebuilt lexical index over the store's texts. */
  lexicalIndex?: LexicalIndex;
  /** Token counter for budget.max_tokens (default: the embedding model's tokenizer, else words). */
  countTokens?: (text: string) => number;
  /** OpenITI checkout for context_window.source = "openiti". */
  openitiRoot?: string;
  metadataPath?: string;
  /** Per-sentence prompt cut (default: the base retriever's, else 150). */
  maxChunkChars?: number;
}

export interface PipelineStats {
  queries: number;
  /** Queries below min_arabic_share (or empty): no retrieval. */
  skippedScript: number;
  /** Hits dropped as duplicates of a better hit. */
  deduplicated: number;
  /** Candidates that came from the lexical side only (hybrid). */
  lexicalOnlyCandidates: number;
  /** Hits dropped by the prompt budget. */
  droppedByBudget: number;
  /** Hits whose context window could not be built. */
  contextProblems: number;
  /** Reranker failures at scoring time (that query kept its order). */
  rerankErrors: number;
}

export interface RetrievalPipeline {
  readonly options: RetrievalPipelineOptions;
  /** Reranker state (active, or why not). null when rerank is off. */
  readonly rerankStatus: RerankerStatus | null;
  /** sha256 of everything that changes the output (options, reranker identity): add it to export fingerprints. */
  readonly fingerprint: string;
  retrieve(query: string, k?: number, minScore?: number): Promise<PipelineChunk[]>;
  retrieveMany(queries: readonly string[], k?: number, minScore?: number): Promise<PipelineChunk[][]>;
  formatForPrompt(chunks: readonly RetrievedChunk[], style?: FormatStyle): string;
  stats(): PipelineStats;
  close(): Promise<void>;
}

interface Candidate {
  idx: number;
  text: string;
  source_uri: string;
  date: number | null;
  embedding: number;
  lexical: number | null;
  rerank: number | null;
  score: number;
}

/** What the stages of one pipeline share: its options, the parts it opened or was given, and its counters. */
interface PipelineContext {
  base: BaseRetriever;
  options: RetrievalPipelineOptions;
  store: CorpusStore | null;
  lexical: LexicalIndex | null;
  vectors: VectorStore | null;
  embedQueries: ((queries: string[]) => Promise<Float32Array>) | null;
  reranker: Reranker | null;
  neighbours: NeighbourSource | null;
  countTokens: ((text: string) => number) | null;
  promptText: (c: RetrievedChunk) => string;
  stats: PipelineStats;
}

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

// ---- setup: each part is opened only when a stage that needs it is on

/** The corpus texts/URIs/lines, when hybrid retrieval or corpus context windows need them. */
async function openStore(base: BaseRetriever, options: RetrievalPipelineOptions, deps: PipelineDeps): Promise<CorpusStore | null> {
  const indexPath = base.config?.indexPath;
  const needStore = options.hybrid.enabled || (options.context_window.lines > 0 && options.context_window.source === 'corpus');
  const store = deps.store ?? null;
  if (store || !needStore) return store;
  // corpus.jsonl first: it carries `line` (the index's sentence list keeps only idx/text/uri/date);
  // RAGRetriever has checked its sha256 against the index manifest when corpusPath is set.
  const corpusPath = base.config?.corpusPath;
  const file = corpusPath && existsSync(corpusPath) ? corpusPath : indexPath ? indexFiles(indexPath).sentences : undefined;
  if (!file)
    throw new Error(
      'retrieval pipeline: hybrid retrieval and corpus context windows need the corpus (no index path or corpus path on the retriever)',
    );
  return loadCorpusStore(file);
}

function buildLexicalIndex(options: RetrievalPipelineOptions, deps: PipelineDeps, store: CorpusStore | null): LexicalIndex | null {
  if (!options.hybrid.enabled) return null;
  const t0 = Date.now();
  const lexical =
    deps.lexicalIndex ??
    LexicalIndex.build(store!.texts, {
      ngram: options.hybrid.ngram,
      k1: options.hybrid.k1,
      b: options.hybrid.b,
      maxDf: options.hybrid.max_df,
    });
  if (lexical.size !== store!.texts.length)
    throw new Error(`retrieval pipeline: lexical index has ${lexical.size} documents, the corpus ${store!.texts.length}`);
  log.info({ docs: lexical.size, grams: lexical.vocabularySize, ms: Date.now() - t0 }, 'lexical index ready');
  return lexical;
}

/** Corpus vectors for MMR and hybrid; `ownsVectors` when the pipeline opened them (so close() closes them). */
function openVectors(
  base: BaseRetriever,
  options: RetrievalPipelineOptions,
  deps: PipelineDeps,
): { vectors: VectorStore | null; ownsVectors: boolean } {
  const indexPath = base.config?.indexPath;
  // Only what the pipeline opens itself is closed by close(); deps belong to the caller.
  let vectors: VectorStore | null = deps.vectors !== undefined ? deps.vectors : null;
  let ownsVectors = false;
  if (deps.vectors === undefined && (options.mmr.enabled || options.hybrid.enabled)) {
    ownsVectors = true;
    vectors =
      base.manifest && indexPath
        ? vectorStoreFor(indexPath, base.manifest, base.model ?? null)
        : base.model
          ? new EmbedderVectors(base.model)
          : null;
  }
  if ((options.mmr.enabled || options.hybrid.enabled) && !vectors)
    throw new Error('retrieval pipeline: MMR and hybrid retrieval need corpus vectors (an index manifest or the embedding model)');
  return { vectors, ownsVectors };
}

function queryEmbedder(base: BaseRetriever, options: RetrievalPipelineOptions, deps: PipelineDeps): PipelineContext['embedQueries'] {
  const embedQueries =
    deps.embedQueries ?? (base.model ? (qs: string[]) => base.model!.embedQueries(qs).then((v) => normalizeRows(v, qs.length)) : null);
  if (options.hybrid.enabled && !embedQueries)
    throw new Error('retrieval pipeline: hybrid retrieval needs the embedding model for query vectors');
  return embedQueries;
}

async function openReranker(
  options: RetrievalPipelineOptions,
  deps: PipelineDeps,
): Promise<{ reranker: Reranker | null; ownsReranker: boolean; rerankStatus: RerankerStatus | null }> {
  if (!options.rerank.enabled) return { reranker: null, ownsReranker: false, rerankStatus: null };
  if (deps.reranker !== undefined) {
    const reranker = deps.reranker;
    const rerankStatus = {
      method: options.rerank.method,
      active: reranker !== null,
      reason: reranker ? null : 'no reranker given',
      name: reranker?.name ?? null,
    };
    return { reranker, ownsReranker: false, rerankStatus };
  }
  const r = await loadReranker({
    method: options.rerank.method,
    modelDir: options.rerank.model_dir,
    maxLength: options.rerank.max_length,
    batchSize: options.rerank.batch_size,
  });
  return { reranker: r.reranker, ownsReranker: true, rerankStatus: r.status };
}

function neighbourSource(options: RetrievalPipelineOptions, deps: PipelineDeps, store: CorpusStore | null): NeighbourSource | null {
  if (options.context_window.lines <= 0) return null;
  if (deps.neighbours) return deps.neighbours;
  if (options.context_window.source === 'corpus') return new CorpusNeighbours(store!);
  if (!deps.openitiRoot) throw new Error('retrieval pipeline: context_window.source "openiti" needs the OpenITI root (deps.openitiRoot)');
  return new OpenITINeighbours({ openitiRoot: deps.openitiRoot, metadataPath: deps.metadataPath });
}

/** Token counter for budget.max_tokens: the embedding model's tokenizer (without its special tokens), else words. */
function tokenCounter(base: BaseRetriever, options: RetrievalPipelineOptions, deps: PipelineDeps): ((text: string) => number) | null {
  const given = deps.countTokens ?? null;
  if (given || options.budget.max_tokens === null) return given;
  if (base.model) {
    const tok = TextTokenizer.load(base.model.files.tokenizerFile);
    const specials = tok.prefixSpecials + tok.suffixSpecials;
    return (t) => Math.max(0, tok.tokens(t).length - specials);
  }
  return (t) => (t.trim() ? t.trim().split(/\s+/u).length : 0);
}

/** A hit's text as the prompt shows it: cut to maxChars, or with its context window within windowChars. */
function promptTextFor(maxChars: number, windowChars: number): (c: RetrievedChunk) => string {
  return (c) => {
    const ctx = (c as Partial<PipelineChunk>).context;
    if (!ctx || (ctx.before.length === 0 && ctx.after.length === 0)) return truncateForPrompt(c.text, ctx ? windowChars : maxChars);
    return windowText(c.text, ctx.before, ctx.after, windowChars);
  };
}

function formatContext(
  chunks: readonly RetrievedChunk[],
  style: FormatStyle,
  citations: boolean,
  promptText: (c: RetrievedChunk) => string,
): string {
  if (chunks.length === 0) return '';
  const lines = chunks.map(promptText);
  if (style === 'plain') return lines.map((l, i) => (citations ? `[#${i + 1}] ${l}` : l)).join('\n');
  if (style !== 'numbered_arabic') throw new Error(`format style must be "numbered_arabic" or "plain", got ${JSON.stringify(style)}`);
  return [CONTEXT_HEADER, ...lines.map((l, i) => `${i + 1}. ${l}`)].join('\n');
}

// ---- per call: script check → candidates (dense [+ lexical, fused]) → dedup → rerank → MMR → top k → window → budget

async function retrieveBatch(ctx: PipelineContext, queries: readonly string[], k?: number, minScore?: number): Promise<PipelineChunk[][]> {
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

/** One query's candidates → dedup → rerank → MMR → its top k. */
async function selectTopK(ctx: PipelineContext, query: string, candidates: Candidate[], k: number): Promise<Candidate[]> {
  let cands = candidates;
  if (ctx.options.dedup) cands = dropDuplicates(cands, ctx.stats);
  if (ctx.reranker && cands.length > 0) cands = await rerankCandidates(ctx, ctx.reranker, query, cands);
  if (ctx.options.mmr.enabled && cands.length > k) cands = await diversify(ctx, cands, k);
  return cands.slice(0, k);
}

async function candidatesFor(ctx: PipelineContext, queries: string[], fetchK: number, minScore: number): Promise<Candidate[][]> {
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

/** Keep hits in order while their prompt text fits max_chars, then max_tokens; number the kept ones. */
function fitBudget(ctx: PipelineContext, list: PipelineChunk[]): PipelineChunk[] {
  const { options, stats } = ctx;
  let kept = list;
  for (const [limit, measure] of [
    [options.budget.max_chars, codePointCount],
    [options.budget.max_tokens, ctx.countTokens],
  ] as const) {
    if (limit === null || !measure) continue;
    const r = mergeWithinBudget(kept, ctx.promptText, { limit, measure });
    stats.droppedByBudget += r.dropped;
    kept = r.kept;
  }
  kept.forEach((c, i) => (c.rank = i + 1));
  return kept;
}

/**
 * A hit with its neighbours, within `maxChars`: the hit first (cut only when it alone is too long), then
 * neighbours nearest first, alternating before/after, each whole or not at all; joined in source order.
 */
export function windowText(hit: string, before: readonly string[], after: readonly string[], maxChars: number): string {
  const h = hit.trim();
  if (codePointCount(h) >= maxChars) return truncateForPrompt(h, maxChars);
  let used = codePointCount(h);
  const pre: string[] = [];
  const post: string[] = [];
  let bi = before.length - 1;
  let ai = 0;
  let bOpen = true;
  let aOpen = true;
  while ((bOpen && bi >= 0) || (aOpen && ai < after.length)) {
    for (const side of ['b', 'a'] as const) {
      if (side === 'b' && bOpen && bi >= 0) {
        const t = before[bi].trim();
        if (used + 1 + codePointCount(t) <= maxChars) {
          pre.unshift(t);
          used += 1 + codePointCount(t);
          bi--;
        } else bOpen = false;
      } else if (side === 'a' && aOpen && ai < after.length) {
        const t = after[ai].trim();
        if (used + 1 + codePointCount(t) <= maxChars) {
          post.push(t);
          used += 1 + codePointCount(t);
          ai++;
        } else aOpen = false;
      }
    }
  }
  return [...pre, h, ...post].join(' ');
}

/** Footnotes for cited context: "[i] source_uri, line N" (line omitted when unknown). */
export function formatCitations(chunks: readonly Pick<PipelineChunk, 'source_uri' | 'line' | 'idx'>[]): string {
  return chunks.map((c, i) => `[${i + 1}] ${c.source_uri || `corpus #${c.idx}`}${c.line ? `, line ${c.line}` : ''}`).join('\n');
}
