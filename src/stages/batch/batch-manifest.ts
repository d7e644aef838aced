/**
 * `batch_manifest.json` (docs/batch.md): what `phase5 infer --batch-out DIR` wrote — the study id every
 * custom_id starts with, and each file with its arm, replicate, seed, line count, bytes and sha256. Its path and
 * sha256 are recorded under `batch` in `<results>/study_manifest.json`, where `--batch-in` finds it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { resolvePath } from '../../config/load';
import type { Config } from '../../config/schema';
import { writeJsonAtomic } from '../../io/jsonl';
import { sha256File, sha256Text } from '../../util/hash';
import { MANIFEST_FILE, writeStudyManifest } from '../study/manifest';
import { UserInputError } from '../shared/types';

export const BATCH_MANIFEST = 'batch_manifest.json';
export const BATCH_FORMAT = 'phase5-batch/1';

export interface BatchFileEntry {
  /** The file's name, in the manifest's folder. */
  file: string;
  arm: string;
  replicate: number;
  seed: number | null;
  model: string;
  lines: number;
  bytes: number;
  sha256: string;
}

export interface BatchManifest {
  format: typeof BATCH_FORMAT;
  study: string;
  written_at: string;
  url: string;
  limits: { max_lines: number; max_bytes: number };
  files: BatchFileEntry[];
}

/** The study's id in every custom_id: its results folder and run name, hashed. */
export function studyId(config: Config): string {
  return sha256Text(`${resolvePath(config.paths.results_dir)}\n${config.run_name}`).slice(0, 12);
}

/** Write the manifest into `dir` and record it in the study manifest; returns its sha256. */
export async function writeBatchManifest(config: Config, dir: string, manifest: BatchManifest): Promise<string> {
  const file = path.join(dir, BATCH_MANIFEST);
  writeJsonAtomic(file, manifest);
  const sha256 = await sha256File(file);
  const study = await writeStudyManifest(config);
  const recorded = JSON.parse(readFileSync(study, 'utf8')) as Record<string, unknown>;
  writeJsonAtomic(study, { ...recorded, batch: { manifest: file, sha256, study: manifest.study, files: manifest.files.length } });
  return sha256;
}

/** The batch manifest the study manifest records (or `file`), checked to be this study's. */
export function readBatchManifest(config: Config, file?: string): { file: string; manifest: BatchManifest } {
  const where = file ?? recordedManifest(config);
  if (!existsSync(where)) throw new UserInputError(`batch manifest not found: ${where} — run \`phase5 infer --batch-out DIR\` first`);
  let manifest: BatchManifest;
  try {
    manifest = JSON.parse(readFileSync(where, 'utf8')) as BatchManifest;
  } catch (err) {
    throw new UserInputError(`${where}: not JSON (${(err as Error).message})`);
  }
  if (manifest?.format !== BATCH_FORMAT || !Array.isArray(manifest.files))
    throw new UserInputError(`${where}: not a batch manifest (format "${String(manifest?.format)}", expected "${BATCH_FORMAT}")`);
  const study = studyId(config);
  if (manifest.study !== study)
    throw new UserInputError(`${where}: the manifest of another study (study ${manifest.study}, this config's is ${study})`);
  return { file: where, manifest };
}

function recordedManifest(config: Config): string {
  const study = path.join(resolvePath(config.paths.results_dir), MANIFEST_FILE);
  const batch = existsSync(study) ? (JSON.parse(readFileSync(study, 'utf8')) as { batch?: { manifest?: string } }).batch : undefined;
  if (!batch?.manifest) throw new UserInputError(`${study} records no batch manifest — run \`phase5 infer --batch-out DIR\` first`);
  return batch.manifest;
}
