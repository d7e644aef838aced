/** The types the retrieval pipeline's parts share: its hits, its inputs, its counters, and the context of one pipeline. */
import type { Embedder } from '../embed/embedder';
import type { IndexManifest } from '../index/manifest';
import type { RetrievedChunk } from '../index/retriever';
import type { FormatStyle } from '../prompts/context';
import type { RetrievalPipelineOptions } from './config';
import type { LexicalIndex } from './lexical-index';
import type { NeighbourSource } from './neighbours';
import type { Reranker, RerankerStatus } from './rerank';
import type { CorpusStore } from './store';
import type { VectorStore } from './vectors';

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

/** A candidate hit inside one call, with every score a stage may set. */
export interface Candidate {
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
export interface PipelineContext {
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
