/**
 * The retriever a worker uses for export, opened once per process and reused across shards (loading the
 * model and index is the slow part). Reopened when the index on disk changes (a rebuild).
 */
import { statSync } from 'node:fs';
import { resolvePath } from '../src/config/load';
import type { Config } from '../src/config/schema';
import type { EmbedderOptions } from '../src/embed/embedder';
import { RAGRetriever, type FormatStyle, type RetrievedChunk, type RetrieverConfig } from '../src/index/retriever';
import { indexFiles, type IndexParams } from '../src/index/manifest';
import type { StagePaths } from './build';
import { UserInputError } from './support';
import { createRetrievalPipeline, RetrievalPipelineSchema } from '../src/retrieval';
import { childLogger } from '../src/util/log';

const log = childLogger('retriever');

/** What export needs: the retriever wrapped in the options pipeline of src/retrieval (identity when all are off). */
export interface ExportRetriever {
  retrieveMany(queries: readonly string[], k: number, minScore: number): Promise<(RetrievedChunk & { line?: number | null })[][]>;
  formatForPrompt(chunks: readonly RetrievedChunk[], style: FormatStyle): string;
  /** Changes whenever the options change the output (part of the export fingerprint). */
  readonly fingerprint: string;
}

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
  };
}

export function indexParams(config: Config): Partial<IndexParams> {
  const i = config.phase5.index;
  return {
    type: i.type === 'FlatIP' ? 'exact' : 'hnsw',
    storage: i.dtype,
    connectivity: i.connectivity,
    expansionAdd: i.expansion_add,
    expansionSearch: i.expansion_search,
  };
}

export function retrieverConfig(config: Config, paths: StagePaths): RetrieverConfig {
  const r = config.phase5.retrieval;
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

const cache = new Map<string, { stamp: string; retriever: Promise<ExportRetriever & { close(): Promise<void> }> }>();

export async function openRetriever(config: Config, paths: StagePaths): Promise<ExportRetriever> {
  const rc = retrieverConfig(config, paths);
  const options = config.phase5.retrieval;
  const key = JSON.stringify({ index: rc.indexPath, embedding: rc.embedding, params: rc.index, options });
  const manifest = indexFiles(paths.index).manifest;
  const stamp = String(statSync(manifest).mtimeMs);
  let hit = cache.get(key);
  if (!hit || hit.stamp !== stamp) {
    if (hit) void hit.retriever.then((r) => r.close()).catch(() => undefined);
    const retriever = RAGRetriever.open(rc).then(async (r) => {
      // Missing model or index: input the user must fix (retrying cannot), so not retryable.
      if (!r.enabled) throw new UserInputError(`retrieval is disabled: ${r.disabledReason}`);
      // The pipeline takes only its own keys (top_k etc. are arguments of retrieveMany).
      const pipelineOptions = Object.fromEntries(Object.keys(RetrievalPipelineSchema.shape).map((k) => [k, options[k as keyof typeof options]]));
      const pipeline = await createRetrievalPipeline(r, pipelineOptions, {
        openitiRoot: resolvePath(config.data.openiti_root),
        maxChunkChars: options.max_chars_per_sentence,
      });
      if (pipeline.rerankStatus) log.info({ rerank: pipeline.rerankStatus }, 'reranker');
      return {
        retrieveMany: (q: readonly string[], k: number, min: number) => pipeline.retrieveMany(q, k, min),
        formatForPrompt: (chunks: readonly RetrievedChunk[], style: FormatStyle) => pipeline.formatForPrompt(chunks, style),
        fingerprint: pipeline.fingerprint,
        close: async () => {
          await pipeline.close();
          await r.close();
        },
      };
    });
    retriever.catch(() => cache.delete(key));
    hit = { stamp, retriever };
    cache.set(key, hit);
  }
  return hit.retriever;
}
