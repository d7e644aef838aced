/** The export's merge: the shards concatenated in plan order into inference_input.jsonl (atomic rename), per shared export. */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic } from '../../io/jsonl';
import { sha256File } from '../../util/hash';
import { pointAt, writeExportRecord } from './finished-export';
import { childLogger } from '../../util/log';
import { concatShards } from './shard-files';
import type { ExportGroup } from '../study/arms';
import { writeArmDirs, writeSharedExportStats, type SharedExport } from '../study/arm-files';
import { type ExportPlan, type ExportMergeResult, type ExportOptions } from './types';
import { skippedFile, settingsExportDir, shardFile, doneFile } from './paths';
import { planSkips } from './plan';

const log = childLogger('export');

/**
 * Concatenate the finished shards in plan order into inference_input.jsonl (atomic rename) — for a study, each
 * shared export into `<results>/exports/<fingerprint>/`, with its retrieval_stats.json, and every arm's dir.
 */
export async function mergeExport(options: ExportOptions, plan: ExportPlan): Promise<ExportMergeResult> {
  if (options.groups) return mergeStudyExports(options, plan, options.groups);
  // Under the settings' fingerprint, so an export with other settings never writes this file; each default
  // arm's inference_input.jsonl is a link to the latest finished export (./finished-export.ts).
  const dir = settingsExportDir(options.config, plan.fingerprint);
  const merged = await mergeInto(options, plan, path.join(dir, 'inference_input.jsonl'));
  writeExportRecord(dir, {
    fingerprint: plan.fingerprint,
    retrieval: options.config.retrieval,
    records: merged.records,
    sha256: merged.sha256,
  });
  const links = [...new Set((options.arms ?? []).map((arm) => arm.input))];
  for (const link of links) {
    mkdirSync(path.dirname(link), { recursive: true });
    pointAt(link, merged.path);
  }
  return { ...merged, links };
}

export async function mergeInto(options: ExportOptions, plan: ExportPlan, target: string): Promise<ExportMergeResult> {
  const { config } = options;
  const files = plan.datasets.map((d) => ({
    dataset: d.dataset,
    samples: d.samples,
    files: d.shards.map((shard) => {
      const file = shardFile(config, shard);
      if (!existsSync(doneFile(file))) throw new Error(`shard ${shard.dataset}#${shard.index} is not finished (${file})`);
      return file;
    }),
  }));
  const byDataset = await concatShards(target, files);
  const sha256 = await sha256File(target); // what an attach to this run checks (bin/cli/finished-files.ts)
  const records = Object.values(byDataset).reduce((a, b) => a + b, 0);
  log.info({ target, records, byDataset }, `inference_input.jsonl: ${records} records`);
  const skipped = planSkips(plan);
  // Written only when something was left out, so a clean study's files stay as they were.
  if (Object.keys(skipped).length > 0) writeJsonAtomic(skippedFile(target), skipped);
  else rmSync(skippedFile(target), { force: true });
  return { path: target, records, byDataset, skipped, sha256 };
}

/** Each shared export of a study, then the arm dirs that point at them. */
export async function mergeStudyExports(options: ExportOptions, plan: ExportPlan, groups: ExportGroup[]): Promise<ExportMergeResult> {
  const exports: SharedExport[] = [];
  let first: ExportMergeResult | null = null;
  for (const group of groups) {
    const part: ExportPlan = { ...plan, datasets: plan.datasets.filter((d) => d.group === group.fingerprint) };
    const merged = await mergeInto(options, part, path.join(group.dir, 'inference_input.jsonl'));
    first ??= merged;
    exports.push(await writeSharedExportStats(group, merged));
  }
  await writeArmDirs(options.arms ?? [], exports);
  return { ...(first as ExportMergeResult), exports };
}
