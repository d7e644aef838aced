/**
 * The build's embedding step fanned out: the corpus is cut into shards of `index.embed_shard_size`
 * rows, each embedded on its own (by any CPU worker) into a part file under `<index>.parts/`, then one step
 * assembles the index and the manifest from the parts in row order.
 *
 *   const plan = await planIndexShards(options);
 *   for (const shard of plan.shards) await embedIndexShard(options, shard, hooks);
 *   const index = await assembleIndex(options, plan);
 *
 * Shards start on multiples of the durable step (`index.batch_size`), whose rows are sorted by length
 * and batched together; so every batch, and every vector, is the one a single-process `buildIndex` computes,
 * and the index file and manifest come out byte-identical (bar the manifest's `created_at`). A part file is
 * its own cursor (src/index/build.ts): a killed shard resumes after its last fsync'd chunk.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { EmbedderIdentity } from '../../embed/embedder';
import { ModelDirError } from '../../embed/model-dir';
import { buildIndexFromVectors, embedCorpusToVectors, removeIndex } from '../../index/build';
import { countJsonlRecords } from '../../index/corpus-file';
import { IndexMismatchError } from '../../index/errors';
import {
  corpusExpectation,
  defaultPartsDir,
  indexFiles,
  indexStatus,
  readManifest,
  resolveIndexParams,
  type IndexManifest,
} from '../../index/manifest';
import { RAGRetriever } from '../../index/retriever';
import { readJson, writeJsonAtomic } from '../../io/jsonl';
import { sha256File } from '../../util/hash';
import { childLogger } from '../../util/log';
import type { BuildOptions, EmbedCheckpoint, IndexResult } from './build';
import { UserInputError, type StageHooks } from '../shared/types';

const log = childLogger('build');

/** Corpus rows [start, end) embedded into part file `part`. */
export interface IndexShard {
  part: number;
  start: number;
  end: number;
}

/** What the plan step hands the shards and the assemble step (small: crosses Temporal). */
export interface IndexPlan {
  /** The index on disk is up to date (and not forced): nothing to embed or assemble. */
  reused: IndexResult | null;
  rows: number;
  corpusSha256: string;
  shards: IndexShard[];
}

/** `<index>.parts/plan.json`: what the parts beside it were embedded for; other parts are discarded. */
interface PartsRecord {
  model: EmbedderIdentity;
  corpus_sha256: string;
  rows: number;
  shard_rows: number;
}

export interface EmbedShardResult {
  part: number;
  rows: number;
  /** Rows that were already on disk when this attempt started. */
  resumedFrom: number;
}

export function partFile(indexPath: string, part: number): string {
  return path.join(defaultPartsDir(indexPath), `part-${String(part).padStart(5, '0')}.f32`);
}

const partsRecordFile = (indexPath: string) => path.join(defaultPartsDir(indexPath), 'plan.json');

/** Shard size rounded up to whole durable steps, so shard starts fall on the chunk boundaries of a one-process build. */
export function shardRows(options: Pick<BuildOptions, 'embedShardSize' | 'batchSize'>): number {
  return Math.ceil(options.embedShardSize / options.batchSize) * options.batchSize;
}

export function cutShards(rows: number, size: number): IndexShard[] {
  const shards: IndexShard[] = [];
  for (let start = 0, part = 0; start < rows; start += size, part++) shards.push({ part, start, end: Math.min(rows, start + size) });
  return shards;
}

/** The embedding model through the retriever (the same loading and errors as the one-process build). */
async function withEmbedder<T>(options: BuildOptions, fn: (retriever: RAGRetriever) => Promise<T>): Promise<T> {
  if (!existsSync(options.paths.corpus))
    throw new UserInputError(`no corpus at ${options.paths.corpus} — the corpus step of \`phase5 build\` makes it`);
  const retriever = await RAGRetriever.open(options.retriever, { loadIndex: false });
  try {
    if (!retriever.model) throw new UserInputError(retriever.disabledReason ?? 'embedding model unavailable');
    return await fn(retriever);
  } catch (err) {
    if (err instanceof IndexMismatchError || err instanceof ModelDirError) throw new UserInputError(err.message);
    throw err;
  } finally {
    await retriever.close();
  }
}

function indexResult(indexPath: string, manifest: IndexManifest): IndexResult {
  return { indexPath, vectors: manifest.corpus.count, dims: manifest.model.dims, model: manifest.model.id, indexType: manifest.index.type };
}

/**
 * Step 1: reuse an up-to-date index, or cut the corpus into shards. Parts left by an interrupted build of the
 * same corpus, model and shard size are kept (their shards resume); any others are discarded.
 */
export async function planIndexShards(options: BuildOptions): Promise<IndexPlan> {
  const { paths } = options;
  return withEmbedder(options, async (retriever) => {
    const identity = retriever.model!.identity;
    const corpus = await corpusExpectation(paths.corpus);
    if (options.force) {
      removeIndex(paths.index);
      rmSync(defaultPartsDir(paths.index), { recursive: true, force: true });
    } else {
      const st = indexStatus(paths.index, { model: identity, index: resolveIndexParams(options.retriever.index), corpus });
      if (st.status === 'ok') {
        log.info({ index: paths.index }, 'index is up to date — not rebuilding (use --force to rebuild)');
        return { reused: indexResult(paths.index, st.manifest), rows: corpus.count, corpusSha256: corpus.sha256, shards: [] };
      }
      if (st.status === 'stale') log.info({ index: paths.index, reason: st.reason }, 'existing index does not match — rebuilding');
    }
    const record: PartsRecord = { model: identity, corpus_sha256: corpus.sha256, rows: corpus.count, shard_rows: shardRows(options) };
    await keepOnlyMatchingParts(paths.index, record);
    const shards = cutShards(corpus.count, record.shard_rows);
    log.info(
      { rows: corpus.count, shards: shards.length, shardRows: record.shard_rows },
      `embedding ${corpus.count} sentences in ${shards.length} shards`,
    );
    return { reused: null, rows: corpus.count, corpusSha256: corpus.sha256, shards };
  });
}

async function keepOnlyMatchingParts(indexPath: string, record: PartsRecord): Promise<void> {
  const dir = defaultPartsDir(indexPath);
  const file = partsRecordFile(indexPath);
  if (existsSync(file) && JSON.stringify(await readJson<PartsRecord>(file)) === JSON.stringify(record)) return;
  if (existsSync(dir)) log.info({ dir }, 'discarding vector parts embedded for another corpus, model or shard size');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeJsonAtomic(file, record);
}

/** Step 2, once per shard (on any worker): embed its rows into its part file, resuming what is on disk. */
export async function embedIndexShard(
  options: BuildOptions,
  shard: IndexShard,
  hooks: StageHooks<EmbedCheckpoint> = {},
): Promise<EmbedShardResult> {
  if (!existsSync(partsRecordFile(options.paths.index)))
    throw new UserInputError(`no build plan at ${partsRecordFile(options.paths.index)} — plan the shards first (the build workflow does)`);
  return withEmbedder(options, async (retriever) => {
    const r = await embedCorpusToVectors({
      corpusPath: options.paths.corpus,
      vectorsPath: partFile(options.paths.index, shard.part),
      embedder: retriever.model!,
      chunkRows: options.batchSize,
      range: { start: shard.start, end: shard.end },
      startRow: hooks.resumeFrom?.rowsEmbedded,
      progressMode: 'silent',
      signal: hooks.signal,
      onBatch: (b) => {
        hooks.onProgress?.(b.rowsEmbedded, b.totalRows);
        hooks.checkpoint?.({ rowsEmbedded: b.rowsEmbedded });
      },
    });
    return { part: shard.part, rows: r.rows, resumedFrom: r.resumedFrom };
  });
}

/** Step 3: the index, sentence list and manifest from the parts in row order; then the parts go. */
export async function assembleIndex(options: BuildOptions, plan: IndexPlan, hooks: StageHooks = {}): Promise<IndexResult> {
  if (plan.reused) return plan.reused;
  const { paths } = options;
  if (!existsSync(partsRecordFile(paths.index))) return finishedEarlier(paths.index, plan);
  const record = await readJson<PartsRecord>(partsRecordFile(paths.index));
  const corpusSha256 = await sha256File(paths.corpus);
  if (
    corpusSha256 !== plan.corpusSha256 ||
    record.corpus_sha256 !== plan.corpusSha256 ||
    (await countJsonlRecords(paths.corpus)) !== plan.rows
  ) {
    throw new UserInputError(`corpus ${paths.corpus} changed while its index was being built — run \`phase5 build\` again`);
  }
  try {
    const manifest = await buildIndexFromVectors({
      corpusPath: paths.corpus,
      vectorsPath: plan.shards.map((s) => partFile(paths.index, s.part)),
      indexPath: paths.index,
      model: record.model,
      index: resolveIndexParams(options.retriever.index),
      corpusSha256,
      threads: options.retriever.threads,
      progressMode: 'silent',
      signal: hooks.signal,
      onProgress: hooks.onProgress,
    });
    rmSync(defaultPartsDir(paths.index), { recursive: true, force: true });
    return indexResult(paths.index, manifest);
  } catch (err) {
    if (err instanceof IndexMismatchError) throw new UserInputError(err.message);
    throw err;
  }
}

/** A retried assemble whose first attempt wrote the manifest and removed the parts before it could report. */
function finishedEarlier(indexPath: string, plan: IndexPlan): IndexResult {
  const { manifest } = indexFiles(indexPath);
  const m = existsSync(manifest) ? readManifest(manifest) : null;
  if (m && m.corpus.sha256 === plan.corpusSha256 && m.corpus.count === plan.rows) return indexResult(indexPath, m);
  throw new UserInputError(
    `the vector parts of ${indexPath} are gone (${partsRecordFile(indexPath)} missing) — run \`phase5 build\` again`,
  );
}

/** All three steps in this process, shard after shard (tests, notebooks; a Temporal build spreads the shards). */
export async function buildIndexInShards(options: BuildOptions, hooks: StageHooks<EmbedCheckpoint> = {}): Promise<IndexResult> {
  const plan = await planIndexShards(options);
  for (const shard of plan.shards) await embedIndexShard(options, shard, { ...hooks, resumeFrom: undefined });
  return assembleIndex(options, plan, { signal: hooks.signal });
}
