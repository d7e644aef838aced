/**
 * One export shard: written (or resumed inside) by any worker; the shard file is the durable cursor (whole lines,
 * fsync'd at checkpoints; a torn last line is cut on resume), so a killed worker leaves no gap and no duplicate.
 */
import { groupOptions } from './options';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { JsonlAppender, readJson, recoverJsonl, writeJsonAtomic } from '../../io/jsonl';
import { acquireFileLock, type WriterLock } from '../../index/writer-lock';
import { childLogger } from '../../util/log';
import { compactShard, sampleIdsIn } from './shard-files';
import type { ExportGroup } from '../study/arms';
import { witnessSettings } from '../witness/witness-index';
import { scatteredHits } from '../witness/scattered-hits';
import { contextSource, writeShardRecords } from './shard-records';
import { type StageHooks } from '../shared/types';
import { type OpenRetriever, type ExportShard, type ExportShardResult, type ExportOptions } from './types';
import { scatterDir, shardFile, doneFile } from './paths';
import { loadSamples } from './datasets';

const log = childLogger('export');

/** A shard finished under the same fingerprint is reused; one made with other settings is removed. */
export async function finishedShard(file: string, shard: ExportShard, total: number): Promise<ExportShardResult | null> {
  if (!existsSync(doneFile(file))) return null;
  const done = await readJson<{ fingerprint: string; records: number; fallbacks: number }>(doneFile(file));
  if (done.fingerprint === shard.fingerprint && done.records === total) return { records: total, fallbacks: done.fallbacks, reused: true };
  rmSync(doneFile(file));
  rmSync(file, { force: true }); // made with other settings: redo
  return null;
}

/**
 * Write one shard file, resuming by content after a crash: whatever earlier attempts wrote, each sample is
 * done once it has a record. `onProgress` counts records in the shard.
 */
export async function exportShard(
  base: ExportOptions,
  shard: ExportShard,
  openRetriever: OpenRetriever,
  hooks: StageHooks = {},
): Promise<ExportShardResult> {
  const options = groupOptions(base, shard.group);
  const { config } = options;
  const file = shardFile(config, shard);
  const total = shard.end - shard.start;
  const reused = await finishedShard(file, shard, total);
  if (reused) return reused;
  mkdirSync(path.dirname(file), { recursive: true });
  // One writer per shard file, across workers: an attempt still running elsewhere makes this one retry later.
  const lock = acquireFileLock(file, 'export shard');
  try {
    return await writeShard(options, shard, file, openRetriever, hooks, lock);
  } finally {
    lock.release();
  }
}

export async function writeShard(
  options: ExportOptions & { mode: ExportGroup['mode'] },
  shard: ExportShard,
  file: string,
  openRetriever: OpenRetriever,
  hooks: StageHooks,
  lock: WriterLock,
): Promise<ExportShardResult> {
  const { config } = options;
  const total = shard.end - shard.start;
  const recovered = recoverJsonl(file);
  if (recovered.truncatedBytes > 0) log.warn({ file, truncatedBytes: recovered.truncatedBytes }, 'cut a torn last line left by a crash');
  const present = await sampleIdsIn(file);
  const name = `${shard.dataset}#${shard.index}`;
  if (present.size > 0) log.info({ shard: name, done: present.size, total }, 'resuming shard');
  hooks.onProgress?.(present.size, total);
  const dataset = (await loadSamples(config, shard.dataset, options, false)).samples;
  const samples = dataset.slice(shard.start, shard.end);
  if (samples.length !== total)
    throw new Error(
      `dataset ${shard.dataset} changed since the export was planned (${samples.length} vs ${total} samples in shard ${shard.index})`,
    );
  const todo = samples.filter((s) => !present.has(s.sample_id));
  if (todo.length > 0) {
    const scattered =
      options.mode === 'witness' && shard.group
        ? scatteredHits(scatterDir(config, shard.group, shard.fingerprint), witnessSettings(config).shards)
        : null;
    const { retriever, source } = await contextSource({ ...options, samples: dataset, scattered }, (config) =>
      openRetriever(config, options.paths),
    );
    const out = new JsonlAppender(file, recovered.records);
    try {
      const onCheckpoint = () => {
        const records = present.size + (out.count - recovered.records);
        hooks.onProgress?.(records, total);
        hooks.checkpoint?.({ records }); // the shard file is durable up to here
        lock.refresh();
      };
      const onBatch = () => hooks.onProgress?.(present.size + (out.count - recovered.records), total);
      await writeShardRecords(todo, 0, out, retriever, config, onCheckpoint, hooks.signal, onBatch, source);
    } finally {
      out.close();
    }
  }
  const { fallbacks, duplicates } = compactShard(file, samples);
  if (duplicates > 0) log.warn({ shard: name, duplicates }, 'dropped duplicate records left by an overlapping attempt');
  writeJsonAtomic(doneFile(file), { fingerprint: shard.fingerprint, records: total, fallbacks });
  log.info({ shard: name, records: total, fallbacks }, 'shard done');
  return { records: total, fallbacks, reused: false };
}
