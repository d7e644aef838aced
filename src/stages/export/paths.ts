/** Where an export's files live: its folder, shard files, the skipped-lines file and the witness rounds. */
import path from 'node:path';
import { resultDirs } from '../../config/load';
import type { Config } from '../../config/schema';
import { studyLayout } from '../study/layout';
import { type ExportShard } from './types';
/** `skipped.json` beside an export's inference_input.jsonl: what it left out, per dataset (read by the report). */
export function skippedFile(exportFile: string): string {
  return path.join(path.dirname(exportFile), 'skipped.json');
}

/** `<results>/exports/<fingerprint>/`: the folder of the default export made under these settings (shards, inference_input.jsonl, export.json). */
export function settingsExportDir(config: Config, fingerprint: string): string {
  return path.join(resultDirs(config).exports, fingerprint);
}

/** `<results>/exports/<group>/witness-rounds/<fingerprint>/`: the rounds of a sharded witness export. */
export function scatterDir(config: Config, group: string, fingerprint: string): string {
  return path.join(studyLayout(config, {}).dirs.exports, group, 'witness-rounds', fingerprint);
}

export function shardFile(config: Config, shard: Pick<ExportShard, 'dataset' | 'index' | 'group' | 'fingerprint'>): string {
  const dir = shard.group
    ? path.join(studyLayout(config, {}).dirs.exports, shard.group, 'shards')
    : settingsExportDir(config, shard.fingerprint);
  return path.join(dir, shard.dataset, `shard-${String(shard.index).padStart(5, '0')}.jsonl`);
}

export const doneFile = (f: string) => `${f}.done.json`;
