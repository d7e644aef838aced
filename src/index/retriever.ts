/**
 * RAGRetriever (docs/retrieval.md#retriever): embeds OCR text as a query and returns the most similar corpus sentences
 * from a built index, and formats them as prompt context (docs/retrieval.md#prompt-context).
 *
 *   const r = await RAGRetriever.open(config);        // loads model + index when present
 *   if (!r.enabled) …r.disabledReason…
 *   const chunks = await r.retrieve(ocrText, 3);
 *   const context = r.formatForPrompt(chunks);         // "نصوص مرجعية صحيحة:\n1. …"
 */
import { existsSync } from 'node:fs';
import { Embedder, normalizeRows, type EmbedderOptions } from '../embed/embedder';
import { readJsonl } from '../io/jsonl';
import { isMostlyArabic } from '../text/arabic';
import { childLogger } from '../util/log';
import type { ProgressOptions } from '../util/progress';
import { buildIndexFromVectors, embedCorpusToVectors, removeIndex, type BatchReport } from './build';
import { IndexCorruptError, IndexMissingError } from './errors';
import { DEFAULT_MAX_CHUNK_CHARS, formatForPrompt, type FormatStyle } from '../prompts/context';
import {
  checkManifest,
  corpusExpectation,
  defaultVectorsPath,
  indexFiles,
  indexStatus,
  readManifest,
  resolveIndexParams,
  type IndexManifest,
  type IndexParams,
} from './manifest';
import { openVectorIndex, type VectorSearcher } from './vector-index';

const log = childLogger('retriever');

export interface RetrievedChunk {
  text: string;
  source_uri: string;
  /** Cosine similarity clamped to [0, 1]. */
  score: number;
  /** 1 = most similar. */
  rank: number;
  /** Corpus idx of the sentence. */
  idx: number;
  /** Author's death date (hijri) from the corpus; null when the corpus has none. */
  date: number | null;
}

export interface RetrieverConfig {
  /** `<dir>/index.usearch` (sidecars derived from it). */
  indexPath: string;
  /** corpus.jsonl the index must have been built from; when given its hash and count are checked. */
  corpusPath?: string;
  /** Model directory and settings, or an already loaded Embedder (shared between components). */
  embedding: EmbedderOptions | Embedder;
  /** Index type ("exact"/"hnsw", or the faiss names "FlatIP"/"HNSW"/"IVFFlat") and parameters expected (and used by buildIndex). */
  index?: Partial<Omit<IndexParams, 'type'>> & { type?: string };
  topK?: number;
  minScore?: number;
  formatStyle?: FormatStyle;
  maxChunkChars?: number;
  /** Search threads (default: all cores). */
  threads?: number;
  /** Memory-map HNSW indexes (default true). */
  view?: boolean;
  /** Compare the index file's sha256 with the manifest when loading (default false; size is always checked). */
  verifyChecksum?: boolean;
  /**
   * What retrieve() does when the retriever is disabled: "throw" (default) raises the reason (e.g. "no
   * index at P — run `phase5 build`"); "empty" returns [] (docs/retrieval.md#graceful-degradation).
   */
  whenDisabled?: 'throw' | 'empty';
}

export interface OpenOptions {
  /** Load the index when present (default true). buildIndex() works either way. */
  loadIndex?: boolean;
}

export interface BuildIndexCallOptions {
  /**
   * Corpus rows per durable step (`index.batch_size`): embedded length-sorted, appended, fsync'd,
   * then `onBatch`. Default 16 × the embedder's batch size. (Rows per session run are the embedder's.)
   */
  batchSize?: number;
  showProgress?: boolean;
  /** Rebuild even when a matching index exists; also discards partial vectors. */
  force?: boolean;
  /** Partial vectors path (default `<dir>/index.vectors.f32.partial`). */
  vectorsPath?: string;
  onBatch?: (r: BatchReport) => void | Promise<void>;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

interface SentenceStore {
  texts: string[];
  uris: string[];
  dates: (number | null)[];
}

async function loadSentences(file: string, expected: number): Promise<SentenceStore> {
  if (!existsSync(file)) throw new IndexCorruptError(file, 'the sentence list is missing');
  const texts: string[] = [];
  const uris: string[] = [];
  const dates: (number | null)[] = [];
  const uriIntern = new Map<string, string>();
  for await (const { value, line } of readJsonl<{ idx: number; text: string; source_uri?: string; date?: number | null }>(file)) {
    if (value.idx !== texts.length || typeof value.text !== 'string') {
      throw new IndexCorruptError(
        file,
        `line ${line}: expected {idx: ${texts.length}, text: "…"}, found ${JSON.stringify(value).slice(0, 80)}`,
      );
    }
    const uri = value.source_uri ?? '';
    let u = uriIntern.get(uri);
    if (u === undefined) uriIntern.set(uri, (u = uri));
    texts.push(value.text);
    uris.push(u);
    dates.push(typeof value.date === 'number' ? value.date : null);
  }
  if (texts.length !== expected)
    throw new IndexCorruptError(file, `has ${texts.length} sentences, the manifest says ${expected} (truncated?)`);
  return { texts, uris, dates };
}

export class RAGRetriever {
  private embedder: Embedder | null = null;
  private searcher: VectorSearcher | null = null;
  private sentences: SentenceStore | null = null;
  private _manifest: IndexManifest | null = null;
  private _disabledReason: string | null = null;
  private ownsEmbedder = false;

  private constructor(readonly config: RetrieverConfig) {}

  /**
   * Load the embedding model and, when present, the index. A missing model or index leaves the retriever
   * disabled (see `disabledReason`); an index that does not match the config (model, settings, corpus)
   * or is damaged throws.
   */
  static async open(config: RetrieverConfig, opts: OpenOptions = {}): Promise<RAGRetriever> {
    const r = new RAGRetriever(config);
    try {
      if (config.embedding instanceof Embedder) r.embedder = config.embedding;
      else {
        r.embedder = await Embedder.load(config.embedding);
        r.ownsEmbedder = true;
      }
    } catch (err) {
      r._disabledReason = `embedding model unavailable: ${(err as Error).message}`;
      log.warn({ reason: r._disabledReason }, 'retrieval disabled');
      return r;
    }
    if (opts.loadIndex ?? true) {
      try {
        await r.loadIndex();
      } catch (err) {
        await r.close();
        throw err;
      }
    }
    return r;
  }

  /** True when the model and index are loaded and retrieve() will search. */
  get enabled(): boolean {
    return this._disabledReason === null && this.searcher !== null;
  }

  get disabledReason(): string | null {
    if (this._disabledReason) return this._disabledReason;
    return this.searcher ? null : new IndexMissingError(this.config.indexPath).message;
  }

  get manifest(): IndexManifest | null {
    return this._manifest;
  }

  /** Number of indexed sentences (0 when no index is loaded). */
  get size(): number {
    return this.sentences?.texts.length ?? 0;
  }

  get model(): Embedder | null {
    return this.embedder;
  }

  /** (Re)load the index at config.indexPath, validating its manifest. Missing → stays disabled. */
  async loadIndex(): Promise<void> {
    await this.closeIndex();
    const files = indexFiles(this.config.indexPath);
    if (!existsSync(files.manifest)) {
      if (existsSync(files.index)) log.warn({ index: files.index }, 'index file without a manifest (incomplete build?) — ignored');
      return;
    }
    const manifest = readManifest(files.manifest);
    checkManifest(this.config.indexPath, manifest, {
      model: this.embedder!.identity,
      index: { ...this.config.index, type: resolveIndexParams(this.config.index).type },
      corpus: this.config.corpusPath && existsSync(this.config.corpusPath) ? await corpusExpectation(this.config.corpusPath) : undefined,
    });
    const searcher = await openVectorIndex(files.index, manifest, {
      threads: this.config.threads,
      expansionSearch: this.config.index?.expansionSearch,
      view: this.config.view,
      verifyChecksum: this.config.verifyChecksum,
    });
    try {
      this.sentences = await loadSentences(files.sentences, manifest.index.count);
    } catch (err) {
      await searcher.close();
      throw err;
    }
    this.searcher = searcher;
    this._manifest = manifest;
    log.info({ index: files.index, type: manifest.index.type, count: manifest.index.count, model: manifest.model.id }, 'index loaded');
  }

  /**
   * Build the index from corpus.jsonl and load it (docs/retrieval.md#retriever). Resumes an interrupted embedding
   * unless `force`; skips the work when a matching index already exists unless `force`.
   */
  async buildIndex(corpusPath: string, indexPath = this.config.indexPath, opts: BuildIndexCallOptions = {}): Promise<IndexManifest> {
    if (!this.embedder) throw new Error(`cannot build the index: ${this._disabledReason}`);
    const params = resolveIndexParams(this.config.index);
    const vectorsPath = opts.vectorsPath ?? defaultVectorsPath(indexPath);
    if (!opts.force) {
      const st = indexStatus(indexPath, { model: this.embedder.identity, index: params, corpus: await corpusExpectation(corpusPath) });
      if (st.status === 'ok') {
        log.info({ index: indexPath }, 'index is up to date — not rebuilding (use --force to rebuild)');
        this.config.indexPath = indexPath;
        this.config.corpusPath = corpusPath;
        await this.loadIndex();
        return st.manifest;
      }
      if (st.status === 'stale') log.info({ index: indexPath, reason: st.reason }, 'existing index does not match — rebuilding');
    }
    if (opts.force) removeIndex(indexPath);
    const embedded = await embedCorpusToVectors({
      corpusPath,
      vectorsPath,
      embedder: this.embedder,
      chunkRows: opts.batchSize,
      restart: opts.force,
      onBatch: opts.onBatch,
      onProgress: opts.onProgress,
      progressMode: progressMode(opts.showProgress),
      signal: opts.signal,
    });
    const manifest = await buildIndexFromVectors({
      corpusPath,
      vectorsPath,
      indexPath,
      model: this.embedder.identity,
      index: params,
      corpusSha256: embedded.corpusSha256,
      threads: this.config.threads,
      progressMode: progressMode(opts.showProgress),
      signal: opts.signal,
    });
    this.config.indexPath = indexPath;
    this.config.corpusPath = corpusPath;
    await this.loadIndex();
    return manifest;
  }

  private assertEnabled(): boolean {
    if (this.enabled) return true;
    if ((this.config.whenDisabled ?? 'throw') === 'empty') return false;
    if (!this._disabledReason) throw new IndexMissingError(this.config.indexPath);
    throw new Error(`retrieval is disabled: ${this._disabledReason}`);
  }

  /** Top-k sentences for one OCR text, by cosine similarity, descending. Empty / non-Arabic (see isMostlyArabic) → []. */
  async retrieve(queryText: string, k?: number, minScore?: number): Promise<RetrievedChunk[]> {
    return (await this.retrieveMany([queryText], k, minScore))[0];
  }

  /** retrieve() for many texts at once: one batched embedding and search (export throughput). */
  async retrieveMany(queries: readonly string[], k?: number, minScore?: number): Promise<RetrievedChunk[][]> {
    const results: RetrievedChunk[][] = queries.map(() => []);
    if (!this.assertEnabled()) return results;
    const kk = k ?? this.config.topK ?? 3;
    const min = minScore ?? this.config.minScore ?? 0;
    if (!Number.isInteger(kk) || kk < 1) throw new Error(`k must be a positive integer, got ${kk}`);
    const todo: number[] = [];
    queries.forEach((q, i) => {
      // Non-Arabic text (most letters not Arabic, or no letters at all) gets no retrieval.
      if (typeof q === 'string' && q.trim() && isMostlyArabic(q)) todo.push(i);
    });
    if (todo.length === 0) return results;
    const vecs = normalizeRows(await this.embedder!.embedQueries(todo.map((i) => queries[i].trim())), todo.length);
    const hits = await this.searcher!.search(vecs, kk);
    const s = this.sentences!;
    todo.forEach((qi, row) => {
      const out: RetrievedChunk[] = [];
      for (let j = 0; j < hits.counts[row]; j++) {
        const key = hits.keys[row * hits.k + j];
        if (key < 0) continue;
        const score = Math.min(1, Math.max(0, hits.scores[row * hits.k + j]));
        if (score < min) continue;
        out.push({ text: s.texts[key], source_uri: s.uris[key], score, rank: 0, idx: key, date: s.dates[key] });
      }
      out.sort((a, b) => b.score - a.score || a.idx - b.idx);
      out.forEach((c, i) => (c.rank = i + 1));
      results[qi] = out;
    });
    return results;
  }

  /** Format chunks as prompt context with the configured style and cut (docs/retrieval.md#prompt-context). */
  formatForPrompt(chunks: readonly RetrievedChunk[], style: FormatStyle = this.config.formatStyle ?? 'numbered_arabic'): string {
    return formatForPrompt(chunks, style, this.config.maxChunkChars ?? DEFAULT_MAX_CHUNK_CHARS);
  }

  private async closeIndex(): Promise<void> {
    await this.searcher?.close();
    this.searcher = null;
    this.sentences = null;
    this._manifest = null;
  }

  async close(): Promise<void> {
    await this.closeIndex();
    if (this.ownsEmbedder) await this.embedder?.dispose();
    this.embedder = null;
  }
}

function progressMode(show: boolean | undefined): ProgressOptions['mode'] {
  return show === false ? 'silent' : undefined;
}
