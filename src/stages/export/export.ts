/**
 * Export stage: for every OCR line of every dataset, retrieve the top-k corpus sentences and write an
 * inference_input.jsonl record (docs/outputs.md#inference_inputjsonl).
 *
 *   const options = optionsFrom(config, { limit: 20 });
 *   const merged = await run(options, {}, openExportRetriever);
 *
 * `planExport` splits each dataset into shards; `exportShard` (any number of workers, any machines) writes
 * one shard file, resuming inside it after a crash: the shard file is the durable cursor (whole lines,
 * fsync'd at checkpoints; a torn last line is cut on resume), so a killed worker leaves no gap and no
 * duplicate. `mergeExport` concatenates the shards in plan order into inference_input.jsonl (atomic rename).
 */
export { fallbackRecord, writeShardRecords, type ContextSource } from './shard-records';
export * from './types';
export * from './paths';
export * from './datasets';
export { planExport, planSkips } from './plan';
export { exportShard } from './shard';
export { mergeExport } from './merge';
import type { StageHooks } from '../shared/types';
import type { OpenRetriever, ExportMergeResult, ExportOptions } from './types';
export { groupOptions, optionsFrom } from './options';
import { planExport } from './plan';
import { exportShard } from './shard';
import { mergeExport } from './merge';

/** The whole stage in one process: plan, every shard in order, merge. */
export async function run(options: ExportOptions, hooks: StageHooks, openRetriever: OpenRetriever): Promise<ExportMergeResult> {
  // every shared export of a study too
  const plan = await planExport(options);
  const shards = plan.datasets.flatMap((d) => d.shards);
  for (const [i, shard] of shards.entries()) {
    await exportShard(options, shard, openRetriever, { signal: hooks.signal });
    hooks.onProgress?.(i + 1, shards.length, 'shards');
  }
  return mergeExport(options, plan);
}
