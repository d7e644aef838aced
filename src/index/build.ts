/**
 * Building an index in two resumable steps:
 *
 * 1. `embedCorpusToVectors` embeds corpus.jsonl in order and appends float32 rows to a partial file,
 *    fsync'd after every chunk. The file is the durable cursor (rows = size / (4·dims)), so a killed build
 *    resumes at the first row not on disk; `onBatch({rowsEmbedded})` is where an activity heartbeats.
 *    A sidecar `<vectors>.meta.json` records the model and corpus the rows belong to, so a partial file
 *    from another model or corpus is never resumed.
 * 2. `buildIndexFromVectors` turns the finished rows into the index file, the ordered sentence list and
 *    the manifest (written last: a manifest means a complete index).
 *
 * A fanned-out build (src/stages/build-shards.ts) runs step 1 once per row range (`range`), each into its own
 * part file, and step 2 over the part files in row order.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { normalizeRows, type Embedder, type EmbedderIdentity } from '../embed/embedder';
import { JsonlAppender, readJson, writeJsonAtomic } from '../io/jsonl';
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { createProgress, type Progress, type ProgressOptions } from '../util/progress';
import { countJsonlRecords, readCorpusForIndex } from './corpus-file';
import { PartialVectorsError } from './errors';
import { indexFiles, modelSection, resolveIndexParams, TOOL_VERSION, type IndexManifest, type IndexParams } from './manifest';
import { Index, USEARCH_VERSION } from './usearch';
import { matrixFileBytes, matrixHeader, readFloatRows, recoverPartialVectors, writeFloats } from './vector-files';
import { usearchMetric, usearchScalar } from './vector-index';

const log = childLogger('index');

export interface BatchReport {
  rowsEmbedded: number;
  totalRows: number;
}

export interface EmbedCorpusOptions {
  corpusPath: string;
  /** Partial vectors file (headerless float32 rows in corpus order). */
  vectorsPath: string;
  embedder: Embedder;
  /** Rows per durable step; sorted by length inside it (default: 16 × the embedder's batch size). */
  chunkRows?: number;
  /**
   * Row the caller believes is next (e.g. from the last heartbeat). The file is the source of truth: when
   * it holds more rows they are kept, when it holds fewer (lost writes) it resumes from the file.
   */
  startRow?: number;
  /** Discard an existing partial file and start from row 0. */
  restart?: boolean;
  /**
   * Embed only corpus rows [start, end) into `vectorsPath` (one shard of a fanned-out build). Start on a
   * multiple of `chunkRows` so the length-sorted chunks, and so the vectors, are those of a whole-corpus run.
   */
  range?: RowRange;
  /** Called after each chunk is durably on disk. */
  onBatch?: (r: BatchReport) => void | Promise<void>;
  onProgress?: (done: number, total: number) => void;
  /** Progress display (default: bar in a TTY, log lines otherwise). */
  progressMode?: ProgressOptions['mode'];
  signal?: AbortSignal;
}

export interface EmbedCorpusResult {
  rows: number;
  totalRows: number;
  dims: number;
  resumedFrom: number;
  corpusSha256: string;
  seconds: number;
}

/** Corpus rows [start, end). */
export interface RowRange {
  start: number;
  end: number;
}

interface PartialMeta {
  model: ReturnType<typeof modelSection>;
  corpus_sha256: string;
  /** The rows a shard's part file holds (absent: the whole corpus). */
  rows?: [number, number];
}

function metaPath(vectorsPath: string): string {
  return `${vectorsPath}.meta.json`;
}

// Two writers appending to one partial file would interleave rows. Within a process (a Temporal worker
// runs a retried attempt beside a stuck one) a set of open paths guards it; across processes a lock file
// holding the writer's pid, taken over when that process is gone.
const activeWriters = new Set<string>();

function acquireWriterLock(vectorsPath: string): () => void {
  const key = path.resolve(vectorsPath);
  if (activeWriters.has(key)) throw new Error(`partial vectors ${vectorsPath} are being written by another build in this process`);
  const lock = `${vectorsPath}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const pid = Number(readFileSync(lock, 'utf8'));
      let alive = false;
      try {
        process.kill(pid, 0);
        alive = pid !== process.pid;
      } catch {
        alive = false;
      }
      if (alive) throw new Error(`partial vectors ${vectorsPath} are being written by process ${pid} (lock ${lock}); wait for it or stop it`);
      rmSync(lock, { force: true }); // stale: its writer died
    }
  }
  activeWriters.add(key);
  return () => {
    activeWriters.delete(key);
    rmSync(lock, { force: true });
  };
}

export async function embedCorpusToVectors(opts: EmbedCorpusOptions): Promise<EmbedCorpusResult> {
  const started = Date.now();
  const { corpusPath, vectorsPath, embedder } = opts;
  if (!existsSync(corpusPath)) throw new Error(`corpus ${corpusPath} does not exist — build the corpus first (phase5 build)`);
  mkdirSync(path.dirname(vectorsPath), { recursive: true });
  const release = acquireWriterLock(vectorsPath); // before any await: a concurrent call fails fast
  try {
    const [corpusSha256, corpusRows] = await Promise.all([sha256File(corpusPath), countJsonlRecords(corpusPath)]);
    const range = opts.range ?? { start: 0, end: corpusRows };
    if (range.start < 0 || range.end > corpusRows || range.start > range.end) throw new Error(`rows ${range.start}..${range.end} are outside corpus ${corpusPath} (${corpusRows} records)`);
    const meta: PartialMeta = { model: modelSection(embedder.identity), corpus_sha256: corpusSha256, ...(opts.range ? { rows: [range.start, range.end] as [number, number] } : {}) };
    return await embedLocked(opts, meta, corpusSha256, range, started);
  } finally {
    release();
  }
}

/** Record the meta of a new partial file; throw when an existing one is from another model, corpus or row range. */
async function checkResumable(vectorsPath: string, meta: PartialMeta): Promise<void> {
  if (!existsSync(vectorsPath)) {
    writeJsonAtomic(metaPath(vectorsPath), meta);
    return;
  }
  const old = existsSync(metaPath(vectorsPath)) ? await readJson<PartialMeta>(metaPath(vectorsPath)) : null;
  const why = !old
    ? `it has no ${path.basename(metaPath(vectorsPath))}`
    : old.corpus_sha256 !== meta.corpus_sha256
      ? 'the corpus changed since'
      : JSON.stringify(old.model) !== JSON.stringify(meta.model)
        ? `it was embedded with another model or settings (${old.model.id} ${old.model.sha256.slice(0, 12)}…)`
        : JSON.stringify(old.rows) !== JSON.stringify(meta.rows)
          ? `it holds rows ${old.rows?.join('..') ?? 'of the whole corpus'}, not ${meta.rows?.join('..') ?? 'the whole corpus'}`
          : null;
  if (why) throw new PartialVectorsError(`partial vectors ${vectorsPath} cannot be resumed: ${why} — delete it or rebuild with \`phase5 build --force\``);
}

async function embedLocked(opts: EmbedCorpusOptions, meta: PartialMeta, corpusSha256: string, range: RowRange, started: number): Promise<EmbedCorpusResult> {
  const { corpusPath, vectorsPath, embedder } = opts;
  const dims = embedder.dims;
  const totalRows = range.end - range.start;
  if (opts.restart) {
    rmSync(vectorsPath, { force: true });
    rmSync(metaPath(vectorsPath), { force: true });
  }
  await checkResumable(vectorsPath, meta);

  const recovered = recoverPartialVectors(vectorsPath, dims);
  if (recovered.truncatedBytes) log.warn({ file: vectorsPath, bytes: recovered.truncatedBytes }, 'cut a partial trailing vector row (interrupted write)');
  let rows = recovered.rows;
  if (rows > totalRows) {
    throw new PartialVectorsError(`partial vectors ${vectorsPath} has ${rows} rows but corpus ${corpusPath} has only ${totalRows} records${opts.range ? ` in rows ${range.start}..${range.end}` : ''} — delete it or rebuild with --force`);
  }
  if (opts.startRow !== undefined && opts.startRow !== rows) {
    log.info({ file: vectorsPath, startRow: opts.startRow, rowsOnDisk: rows }, 'resuming from the rows on disk, not the reported start row');
  }
  const resumedFrom = rows;
  if (rows > 0 && rows < totalRows) log.info({ file: vectorsPath, rows, totalRows }, 'resuming embedding');

  const chunkRows = opts.chunkRows ?? embedder.settings.batchSize * 16;
  const progress = createProgress({ label: 'embed corpus', total: totalRows, start: rows, mode: opts.progressMode });
  const fd = openSync(vectorsPath, 'a');
  try {
    let pending: string[] = [];
    const flush = async () => {
      if (!pending.length) return;
      opts.signal?.throwIfAborted();
      const vecs = await embedder.embedPassages(pending);
      writeFloats(fd, vecs);
      fsyncSync(fd);
      rows += pending.length;
      pending = [];
      progress.update(rows);
      opts.onProgress?.(rows, totalRows);
      await opts.onBatch?.({ rowsEmbedded: rows, totalRows });
    };
    if (rows < totalRows) {
      for await (const s of readCorpusForIndex(corpusPath, range.start + rows)) {
        pending.push(s.text);
        if (pending.length >= chunkRows) await flush();
        if (rows + pending.length >= totalRows) break;
      }
    }
    await flush();
  } finally {
    closeSync(fd);
    progress.stop();
  }
  if (rows !== totalRows) throw new Error(`embedded ${rows} rows but corpus ${corpusPath} has ${totalRows} records${opts.range ? ` in rows ${range.start}..${range.end}` : ''}`);
  const seconds = (Date.now() - started) / 1000;
  log.info({ rows, resumedFrom, seconds: Number(seconds.toFixed(1)), perSecond: Number(((rows - resumedFrom) / Math.max(seconds, 1e-3)).toFixed(1)) }, 'corpus embedded');
  return { rows, totalRows, dims, resumedFrom, corpusSha256, seconds };
}

export interface BuildIndexOptions {
  corpusPath: string;
  /** The finished vectors: one file, or the part files of a fanned-out build in row order. */
  vectorsPath: string | readonly string[];
  /** `<dir>/index.usearch`; sidecars are derived from it (see manifest.ts). */
  indexPath: string;
  /** Identity of the embedder that produced the vectors (Embedder#identity). */
  model: EmbedderIdentity;
  index?: Partial<IndexParams>;
  /** Corpus hash when already known (saves re-reading the file). */
  corpusSha256?: string;
  /** Threads for HNSW construction (default: all cores). */
  threads?: number;
  /** Keep the partial vectors after a successful build (default false: they are deleted). */
  keepVectors?: boolean;
  onProgress?: (done: number, total: number) => void;
  progressMode?: ProgressOptions['mode'];
  signal?: AbortSignal;
}

const ROWS_PER_STEP = 8192;

export async function buildIndexFromVectors(opts: BuildIndexOptions): Promise<IndexManifest> {
  const params = resolveIndexParams(opts.index);
  const files = indexFiles(opts.indexPath);
  const dims = opts.model.dims;
  const [corpusSha256, count] = await Promise.all([opts.corpusSha256 ?? sha256File(opts.corpusPath), countJsonlRecords(opts.corpusPath)]);
  checkVectorsFile(opts, count, dims);
  mkdirSync(path.dirname(files.index), { recursive: true });
  // An old manifest must not vouch for files that are about to be replaced.
  if (existsSync(files.manifest)) unlinkSync(files.manifest);

  const tmpSuffix = `.tmp-${process.pid}`;
  const sentTmp = files.sentences + tmpSuffix;
  await writeSentenceList(opts.corpusPath, sentTmp, count);
  const idxTmp = files.index + tmpSuffix;
  writeIndexFile(opts, params, idxTmp, count);
  renameSync(sentTmp, files.sentences);
  renameSync(idxTmp, files.index);
  const fileBytes = statSync(files.index).size;
  if (params.type === 'exact' && fileBytes !== matrixFileBytes(count, dims)) throw new Error(`wrote ${fileBytes} bytes to ${files.index}, expected ${matrixFileBytes(count, dims)}`);

  const manifest = await indexManifest(opts, params, { file: files.index, fileBytes, count, corpusSha256 });
  writeJsonAtomic(files.manifest, manifest);
  if (!opts.keepVectors) {
    for (const f of vectorFiles(opts)) for (const p of [f, metaPath(f)]) rmSync(p, { force: true });
  }
  log.info({ index: files.index, type: params.type, count, bytes: fileBytes }, 'index built');
  return manifest;
}

/** The vectors must exist and hold exactly one row per corpus record (an unfinished embedding does not). */
function checkVectorsFile(opts: BuildIndexOptions, count: number, dims: number): void {
  const files = vectorFiles(opts);
  const missing = files.find((f) => !existsSync(f));
  if (missing) throw new Error(`vectors file ${missing} does not exist — run the embedding step first`);
  const vecBytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
  if (vecBytes !== count * dims * 4) {
    const what = files.length === 1 ? `vectors file ${files[0]}` : `the ${files.length} vector parts in ${path.dirname(files[0])}`;
    throw new Error(`${what} hold${files.length === 1 ? 's' : ''} ${vecBytes / (4 * dims)} rows of ${dims} floats but corpus ${opts.corpusPath} has ${count} records — finish (resume) the embedding first`);
  }
}

function vectorFiles(opts: Pick<BuildIndexOptions, 'vectorsPath'>): readonly string[] {
  return typeof opts.vectorsPath === 'string' ? [opts.vectorsPath] : opts.vectorsPath;
}

/** Rows of the vector files read as one matrix: rows [start, start+count) may span part files. */
class VectorRows {
  private readonly parts: { fd: number; firstRow: number; rows: number }[] = [];

  constructor(files: readonly string[], private readonly dims: number) {
    let firstRow = 0;
    try {
      for (const f of files) {
        const rows = statSync(f).size / (4 * dims);
        this.parts.push({ fd: openSync(f, 'r'), firstRow, rows });
        firstRow += rows;
      }
    } catch (err) {
      this.close();
      throw err;
    }
  }

  read(start: number, count: number): Float32Array {
    const out = new Float32Array(count * this.dims);
    for (const p of this.parts) {
      const from = Math.max(start, p.firstRow);
      const to = Math.min(start + count, p.firstRow + p.rows);
      if (from < to) out.set(readFloatRows(p.fd, this.dims, from - p.firstRow, to - from), (from - start) * this.dims);
    }
    return out;
  }

  close(): void {
    for (const p of this.parts) closeSync(p.fd);
  }
}

/** The ordered sentence list (idx, text, source_uri, date); the corpus must still have `count` records. */
async function writeSentenceList(corpusPath: string, file: string, count: number): Promise<void> {
  const out = new JsonlAppender(file, 0);
  let n = 0;
  try {
    for await (const s of readCorpusForIndex(corpusPath)) {
      out.write({ idx: s.idx, text: s.text, source_uri: s.source_uri, date: s.date });
      n++;
    }
  } finally {
    out.close();
  }
  if (n !== count) throw new Error(`corpus ${corpusPath} changed while building (${n} records, expected ${count})`);
}

/** The index file from the normalised vectors: a plain f32 matrix (exact) or a usearch HNSW graph. */
function writeIndexFile(opts: BuildIndexOptions, params: IndexParams, file: string, count: number): void {
  const progress = createProgress({ label: params.type === 'hnsw' ? 'build HNSW index' : 'write vector matrix', total: count, mode: opts.progressMode });
  const vectors = new VectorRows(vectorFiles(opts), opts.model.dims);
  const blocks: RowBlocks = { vectors, dims: opts.model.dims, count, opts, progress };
  try {
    if (params.type === 'exact') writeMatrixFile(blocks, file);
    else writeHnswFile(blocks, params, file, opts.threads ?? os.availableParallelism());
  } finally {
    vectors.close();
    progress.stop();
  }
}

interface RowBlocks {
  vectors: VectorRows;
  dims: number;
  count: number;
  opts: Pick<BuildIndexOptions, 'signal' | 'onProgress'>;
  progress: Progress;
}

/** The vectors in normalised blocks of ROWS_PER_STEP rows, with cancellation and progress between blocks. */
function forEachNormalizedBlock(b: RowBlocks, onBlock: (start: number, rows: number, vecs: Float32Array) => void): void {
  for (let start = 0; start < b.count; start += ROWS_PER_STEP) {
    b.opts.signal?.throwIfAborted();
    const rows = Math.min(ROWS_PER_STEP, b.count - start);
    onBlock(start, rows, normalizeRows(b.vectors.read(start, rows), rows));
    b.progress.update(start + rows);
    b.opts.onProgress?.(start + rows, b.count);
  }
}

function writeMatrixFile(b: RowBlocks, file: string): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, matrixHeader(b.count, b.dims));
    forEachNormalizedBlock(b, (_start, _rows, vecs) => writeFloats(fd, vecs));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeHnswFile(b: RowBlocks, params: IndexParams, file: string, threads: number): void {
  const index = new Index({
    dimensions: b.dims,
    metric: usearchMetric(params.storage),
    quantization: usearchScalar(params.storage),
    connectivity: params.connectivity,
    expansion_add: params.expansionAdd,
    expansion_search: params.expansionSearch,
    multi: false,
  });
  forEachNormalizedBlock(b, (start, rows, vecs) => {
    const keys = new BigUint64Array(rows); // key = row number
    for (let i = 0; i < rows; i++) keys[i] = BigInt(start + i);
    index.add(keys, vecs, threads);
  });
  index.save(file);
}

async function indexManifest(
  opts: BuildIndexOptions,
  params: IndexParams,
  built: { file: string; fileBytes: number; count: number; corpusSha256: string },
): Promise<IndexManifest> {
  const hnsw = params.type === 'hnsw';
  const { count } = built;
  return {
    format: 'openiti-rag-index',
    format_version: 1,
    created_at: new Date().toISOString(),
    tool_version: TOOL_VERSION,
    usearch_version: USEARCH_VERSION,
    model: modelSection(opts.model),
    index: {
      type: params.type,
      metric: 'cos',
      storage: hnsw ? params.storage : 'f32',
      file_format: hnsw ? 'usearch' : 'f32-matrix',
      file_bytes: built.fileBytes,
      file_sha256: await sha256File(built.file),
      connectivity: hnsw ? params.connectivity : null,
      expansion_add: hnsw ? params.expansionAdd : null,
      expansion_search: hnsw ? params.expansionSearch : null,
      count,
    },
    corpus: { path: opts.corpusPath, sha256: built.corpusSha256, count },
  };
}

/** Remove every file of an index (for `--force`). */
export function removeIndex(indexPath: string): void {
  const f = indexFiles(indexPath);
  for (const p of [f.manifest, f.index, f.sentences]) rmSync(p, { force: true });
}
