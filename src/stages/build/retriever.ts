/**
 * The retriever the build and export stages use, assembled from the config: the encoder and index settings,
 * and the options pipeline of src/retrieval (rerank, hybrid, MMR, window, budget, citations) around the dense
 * index — identity when every option is off.
 */
import { resolvePath } from '../../config/load';
import type { Config } from '../../config/schema';
import type { EmbedderOptions } from '../../embed/embedder';
import { RAGRetriever, type RetrievedChunk, type RetrieverConfig } from '../../index/retriever';
import { type FormatStyle } from '../../prompts/context';
import type { IndexParams } from '../../index/manifest';
import { createRetrievalPipeline, RetrievalPipelineSchema } from '../../retrieval/index';
import { childLogger } from '../../util/log';
import type { LineInContext } from '../../witness/context-search';
import { UserInputError } from '../shared/types';

const log = childLogger('retriever');

/** Where a run's corpus and index live. */
export interface StagePaths {
  corpus: string;
  index: string;
}

/** What export needs: the retriever wrapped in the options pipeline. */
export interface ExportRetriever {
  retrieveMany(
    queries: readonly string[],
    k: number,
    minScore: number,
  ): Promise<(RetrievedChunk & { line?: number | null; witness?: WitnessPosition })[][]>;
  /** Witness retrieval: hits for OCR lines with their neighbouring OCR lines (src/witness/context-search.ts). */
  retrieveInContext?(
    lines: readonly LineInContext[],
    k: number,
    minScore: number,
  ): Promise<(RetrievedChunk & { line?: number | null; witness?: WitnessPosition })[][]>;
  formatForPrompt(chunks: readonly RetrievedChunk[], style: FormatStyle): string;
  /** Changes whenever the options change the output (part of the export fingerprint). */
  readonly fingerprint: string;
}

/** Where a witness hit lies in its work, beyond its first line (retrieval_sources of witness exports). */
export interface WitnessPosition {
  line_end: number;
  page: string | null;
  ms: string | null;
}

export type ClosableRetriever = ExportRetriever & { close(): Promise<void> };

export function embedderOptions(config: Config): EmbedderOptions {
  const e = config.rag.embedding;
  return {
    modelDir: resolvePath(e.model_dir),
    modelId: config.rag.embedding_model,
    queryPrefix: e.query_prefix,
    passagePrefix: e.passage_prefix,
    pooling: e.pooling,
    normalize: e.normalize,
    maxLength: e.max_length,
    batchSize: e.batch_size,
    threads: e.threads,
    sessions: e.sessions,
    // Only a GPU request is passed on, so the options of a CPU run (part of cache keys) stay as they were.
    ...(e.device !== 'cpu' ? { device: e.device } : {}),
  };
}

export function indexParams(config: Config): Partial<IndexParams> {
  const i = config.index;
  return {
    type: i.type === 'FlatIP' ? 'exact' : 'hnsw',
    storage: i.dtype,
    connectivity: i.connectivity,
    expansionAdd: i.expansion_add,
    expansionSearch: i.expansion_search,
  };
}

export function retrieverConfig(config: Config, paths: StagePaths): RetrieverConfig {
  const r = config.retrieval;
  return {
    indexPath: paths.index,
    corpusPath: paths.corpus,
    embedding: embedderOptions(config),
    index: indexParams(config),
    topK: r.top_k,
    minScore: r.min_score,
    formatStyle: r.format_style,
    maxChunkChars: r.max_chars_per_sentence,
    threads: config.rag.embedding.threads,
  };
}

/** Key under which an opened export retriever may be reused (same index, encoder and options). */
export function exportRetrieverKey(config: Config, paths: StagePaths): string {
  const rc = retrieverConfig(config, paths);
  return JSON.stringify({ index: rc.indexPath, embedding: rc.embedding, params: rc.index, options: config.retrieval });
}

/** Load the model and index and wrap them in the configured options pipeline (the slow part of export). */
export async function openExportRetriever(config: Config, paths: StagePaths): Promise<ClosableRetriever> {
  const options = config.retrieval;
  const r = await RAGRetriever.open(retrieverConfig(config, paths));
  // Missing model or index: input the user must fix (retrying cannot), so not retryable.
  if (!r.enabled) throw new UserInputError(`retrieval is disabled: ${r.disabledReason}`);
  // The pipeline takes only its own keys (top_k etc. are arguments of retrieveMany).
  const pipelineOptions = Object.fromEntries(
    Object.keys(RetrievalPipelineSchema.shape).map((k) => [k, options[k as keyof typeof options]]),
  );
  const pipeline = await createRetrievalPipeline(r, pipelineOptions, {
    openitiRoot: resolvePath(config.data.openiti_root),
    maxChunkChars: options.max_chars_per_sentence,
  });
  if (pipeline.rerankStatus) log.info({ rerank: pipeline.rerankStatus }, 'reranker');
  return {
    retrieveMany: (q, k, min) => pipeline.retrieveMany(q, k, min),
    formatForPrompt: (chunks, style) => pipeline.formatForPrompt(chunks, style),
    fingerprint: pipeline.fingerprint,
    close: async () => {
      await pipeline.close();
      await r.close();
    },
  };
}
