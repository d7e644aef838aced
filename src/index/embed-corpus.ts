/**
 * Step 1 of an index build: embed corpus.jsonl in order and append float32 rows to a partial file, fsync'd after
 * every chunk (the next chunk is already embedding meanwhile). The file is the durable cursor (rows = size / (4·dims)), so a killed build resumes at the first row
 * not on disk; `onBatch({rowsEmbedded})` is where an activity heartbeats.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../embed/embedder';
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { createProgress, type ProgressOptions } from '../util/progress';
import { countJsonlRecords, readCorpusForIndex } from './corpus-file';
import { PartialVectorsError } from './errors';
import { modelSection } from './manifest';
import { checkResumable, metaPath, type PartialMeta } from './partial-vectors';
import { recoverPartialVectors, writeFloats } from './vector-files';
import { acquireWriterLock } from './writer-lock';

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

/**
 * Embed corpus rows from `rows` (relative to the range) to the range's end, appending each chunk's vectors
 * to the partial file and fsync'ing it; returns the rows now on disk. Double buffering: chunk k+1 is tokenized
 * and queued on the sessions before chunk k is written and fsync'd, so the sessions never wait for the disk,
 * the heartbeat or the next chunk's tokens. Chunks are written in order, so the file stays a prefix of the
 * corpus (the durable cursor).
 */
async function appendChunks(opts: EmbedCorpusOptions, range: RowRange, startRows: number, totalRows: number): Promise<number> {
  const { corpusPath, vectorsPath, embedder } = opts;
  const chunkRows = opts.chunkRows ?? embedder.settings.batchSize * 16;
  const progress = createProgress({ label: 'embed corpus', total: totalRows, start: startRows, mode: opts.progressMode });
  const fd = openSync(vectorsPath, 'a');
  let rows = startRows;
  try {
    let pending: string[] = [];
    let inFlight = null as InFlightChunk | null; // set inside submit(): a declared type would be narrowed to null below
    const commit = async (chunk: InFlightChunk) => {
      writeFloats(fd, await chunk.vecs);
      fsyncSync(fd);
      rows += chunk.count;
      progress.update(rows);
      opts.onProgress?.(rows, totalRows);
      await opts.onBatch?.({ rowsEmbedded: rows, totalRows });
    };
    const submit = async () => {
      opts.signal?.throwIfAborted();
      const vecs = embedder.embedPassages(pending);
      vecs.catch(() => undefined); // awaited in commit(); a failure before then must not count as unhandled
      const previous = inFlight;
      inFlight = { count: pending.length, vecs };
      pending = [];
      if (previous) await commit(previous);
    };
    if (rows < totalRows) {
      for await (const s of readCorpusForIndex(corpusPath, range.start + rows)) {
        pending.push(s.text);
        if (pending.length >= chunkRows) await submit();
        if (rows + (inFlight?.count ?? 0) + pending.length >= totalRows) break;
      }
    }
    if (pending.length) await submit();
    if (inFlight) await commit(inFlight);
  } finally {
    closeSync(fd);
    progress.stop();
  }
  return rows;
}

/** A chunk whose vectors are being computed while the chunk before it is written. */
interface InFlightChunk {
  count: number;
  vecs: Promise<Float32Array>;
}

/** Corpus rows [start, end). */
export interface RowRange {
  start: number;
  end: number;
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
    if (range.start < 0 || range.end > corpusRows || range.start > range.end)
      throw new Error(`rows ${range.start}..${range.end} are outside corpus ${corpusPath} (${corpusRows} records)`);
    const meta: PartialMeta = {
      model: modelSection(embedder.identity),
      corpus_sha256: corpusSha256,
      ...(opts.range ? { rows: [range.start, range.end] as [number, number] } : {}),
    };
    return await embedLocked(opts, meta, corpusSha256, range, started);
  } finally {
    release();
  }
}

async function embedLocked(
  opts: EmbedCorpusOptions,
  meta: PartialMeta,
  corpusSha256: string,
  range: RowRange,
  started: number,
): Promise<EmbedCorpusResult> {
  const { corpusPath, vectorsPath, embedder } = opts;
  const dims = embedder.dims;
  const totalRows = range.end - range.start;
  if (opts.restart) {
    rmSync(vectorsPath, { force: true });
    rmSync(metaPath(vectorsPath), { force: true });
  }
  await checkResumable(vectorsPath, meta);

  const recovered = recoverPartialVectors(vectorsPath, dims);
  if (recovered.truncatedBytes)
    log.warn({ file: vectorsPath, bytes: recovered.truncatedBytes }, 'cut a partial trailing vector row (interrupted write)');
  let rows = recovered.rows;
  if (rows > totalRows) {
    throw new PartialVectorsError(
      `partial vectors ${vectorsPath} has ${rows} rows but corpus ${corpusPath} has only ${totalRows} records${opts.range ? ` in rows ${range.start}..${range.end}` : ''} — delete it or rebuild with --force`,
    );
  }
  if (opts.startRow !== undefined && opts.startRow !== rows) {
    log.info(
      { file: vectorsPath, startRow: opts.startRow, rowsOnDisk: rows },
      'resuming from the rows on disk, not the reported start row',
    );
  }
  const resumedFrom = rows;
  if (rows > 0 && rows < totalRows) log.info({ file: vectorsPath, rows, totalRows }, 'resuming embedding');

  rows = await appendChunks(opts, range, rows, totalRows);
  if (rows !== totalRows)
    throw new Error(
      `embedded ${rows} rows but corpus ${corpusPath} has ${totalRows} records${opts.range ? ` in rows ${range.start}..${range.end}` : ''}`,
    );
  const seconds = (Date.now() - started) / 1000;
  log.info(
    {
      rows,
      resumedFrom,
      seconds: Number(seconds.toFixed(1)),
      perSecond: Number(((rows - resumedFrom) / Math.max(seconds, 1e-3)).toFixed(1)),
    },
    'corpus embedded',
  );
  return { rows, totalRows, dims, resumedFrom, corpusSha256, seconds };
}
