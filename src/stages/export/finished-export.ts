/**
 * What a finished default export is, on disk (docs/outputs.md#one-folder-per-settings):
 *
 *   <results>/exports/<fingerprint>/inference_input.jsonl   the records of these settings
 *   <results>/exports/<fingerprint>/export.json             fingerprint, retrieval settings, records, sha256
 *   <results>/arms/<arm>/inference_input.jsonl              each default arm's: a relative link to the latest finished one
 *
 * Exports with other settings never share a file; the link is the documented name infer reads, and infer
 * refuses it when export.json beside its target records other retrieval settings than its own config's.
 */
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, copyFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Config } from '../../config/schema';
import { writeJsonAtomic } from '../../io/jsonl';
import { UserInputError } from '../shared/types';

export const EXPORT_RECORD = 'export.json';

export interface ExportRecord {
  fingerprint: string;
  retrieval: Config['retrieval'];
  records: number;
  sha256: string;
}

export function writeExportRecord(dir: string, record: ExportRecord): void {
  writeJsonAtomic(path.join(dir, EXPORT_RECORD), record);
}

/** Replace `link` by a relative symlink to `target` in one rename (a copy where links cannot be made). */
export function pointAt(link: string, target: string): void {
  const tmp = `${link}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    symlinkSync(path.relative(path.dirname(link), target), tmp);
  } catch {
    rmSync(tmp, { force: true });
    copyFileSync(target, tmp);
  }
  renameSync(tmp, link);
}

/** JSON with object keys sorted: two settings objects compare equal whatever their key order. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * Throws in one line when `input` (the default arms' inference_input.jsonl) is the export of other retrieval
 * settings than `config`'s. A file without export.json beside its target (made by another tool) is taken as is.
 */
export function checkExportSettings(input: string, config: Config): void {
  if (!existsSync(input)) return;
  const record = path.join(path.dirname(realpathSync(input)), EXPORT_RECORD);
  if (!existsSync(record)) return;
  const there = (JSON.parse(readFileSync(record, 'utf8')) as ExportRecord).retrieval as Record<string, unknown>;
  const here = config.retrieval as Record<string, unknown>;
  const differ = Object.keys({ ...there, ...here })
    .filter((k) => sortedJson(there[k]) !== sortedJson(here[k]))
    .map((k) => `${k} ${sortedJson(there[k])} there, ${sortedJson(here[k])} here`);
  if (differ.length === 0) return;
  throw new UserInputError(
    `${input} is the export of other retrieval settings (${differ.join('; ')}; ${record}) — run \`phase5 export\` with this config first`,
  );
}
