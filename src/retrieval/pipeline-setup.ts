/** Setup of a retrieval pipeline: each part is opened only when a stage that needs it is on. */
import { existsSync } from 'node:fs';
import { normalizeRows } from '../embed/embedder';
import { TextTokenizer } from '../embed/tokenizer';
import { indexFiles } from '../index/manifest';
import { childLogger } from '../util/log';
import type { RetrievalPipelineOptions } from './config';
import { LexicalIndex } from './lexical-index';
import { CorpusNeighbours, OpenITINeighbours, type NeighbourSource } from './neighbours';
import type { BaseRetriever, PipelineContext, PipelineDeps } from './pipeline-types';
import { loadReranker, type Reranker, type RerankerStatus } from './rerank';
import { loadCorpusStore, type CorpusStore } from './store';
import { EmbedderVectors, vectorStoreFor, type VectorStore } from './vectors';

const log = childLogger('retrieval');

/** The corpus texts/URIs/lines, when hybrid retrieval or corpus context windows need them. */
export async function openStore(base: BaseRetriever, options: RetrievalPipelineOptions, deps: PipelineDeps): Promise<CorpusStore | null> {
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

export function buildLexicalIndex(options: RetrievalPipelineOptions, deps: PipelineDeps, store: CorpusStore | null): LexicalIndex | null {
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
export function openVectors(
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

export function queryEmbedder(base: BaseRetriever, options: RetrievalPipelineOptions, deps: PipelineDeps): PipelineContext['embedQueries'] {
  const embedQueries =
    deps.embedQueries ?? (base.model ? (qs: string[]) => base.model!.embedQueries(qs).then((v) => normalizeRows(v, qs.length)) : null);
  if (options.hybrid.enabled && !embedQueries)
    throw new Error('retrieval pipeline: hybrid retrieval needs the embedding model for query vectors');
  return embedQueries;
}

export async function openReranker(
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

export function neighbourSource(options: RetrievalPipelineOptions, deps: PipelineDeps, store: CorpusStore | null): NeighbourSource | null {
  if (options.context_window.lines <= 0) return null;
  if (deps.neighbours) return deps.neighbours;
  if (options.context_window.source === 'corpus') return new CorpusNeighbours(store!);
  if (!deps.openitiRoot) throw new Error('retrieval pipeline: context_window.source "openiti" needs the OpenITI root (deps.openitiRoot)');
  return new OpenITINeighbours({ openitiRoot: deps.openitiRoot, metadataPath: deps.metadataPath });
}

/** Token counter for budget.max_tokens: the embedding model's tokenizer (without its special tokens), else words. */
export function tokenCounter(
  base: BaseRetriever,
  options: RetrievalPipelineOptions,
  deps: PipelineDeps,
): ((text: string) => number) | null {
  const given = deps.countTokens ?? null;
  if (given || options.budget.max_tokens === null) return given;
  if (base.model) {
    const tok = TextTokenizer.load(base.model.files.tokenizerFile);
    const specials = tok.prefixSpecials + tok.suffixSpecials;
    return (t) => Math.max(0, tok.tokens(t).length - specials);
  }
  return (t) => (t.trim() ? t.trim().split(/\s+/u).length : 0);
}
