/**
 * `phase5 infer --batch-out DIR`: every arm × replicate × selected line not yet corrected, as the request infer
 * would send it, in OpenAI Batch JSONL files — one series per arm and replicate (`<arm>.r<r>.<part>.jsonl`),
 * cut at `infer.batch.max_lines` lines / `infer.batch.max_bytes` bytes — and `batch_manifest.json` beside them.
 *
 *   const { manifest } = await batchOut(options, dir);
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { readInferenceInput, type InferenceInputRow } from '../../llm/records';
import { sha256File } from '../../util/hash';
import type { ArmRun } from '../study/arms';
import { selectRows, type InferOptions } from '../infer/infer';
import { replicateRuns } from '../study/replicates';
import { UserInputError } from '../shared/types';
import { BATCH_FORMAT, BATCH_MANIFEST, studyId, writeBatchManifest, type BatchFileEntry, type BatchManifest } from './batch-manifest';
import { BATCH_URL, lineBody, runRequest, type BatchInputLine } from './batch-request';
import { formatCustomId } from './custom-id';
import type { BatchOutResult } from './types';
import { doneIds } from './done-ids';

export interface BatchLimits {
  maxLines: number;
  maxBytes: number;
}

/** One run's lines to ask for: the selection, first of each sample_id, minus those with a record. */
async function pendingRows(options: InferOptions, run: ArmRun): Promise<{ rows: InferenceInputRow[]; done: number }> {
  if (!existsSync(run.input)) throw new UserInputError(`no ${run.input} — run \`phase5 export\` first`);
  const done = await doneIds(run.output, options.retryFailed);
  const seen = new Set<string>();
  const rows: InferenceInputRow[] = [];
  let skipped = 0;
  for (const r of selectRows(options, await readInferenceInput(run.input))) {
    if (seen.has(r.sample_id)) continue;
    seen.add(r.sample_id);
    if (done.has(r.sample_id)) skipped++;
    else rows.push(r);
  }
  return { rows, done: skipped };
}

/** A series of part files, each closed at the line or byte limit. */
class PartWriter {
  private fd: number | null = null;
  private part = 0;
  private lines = 0;
  private bytes = 0;
  readonly names: { file: string; lines: number; bytes: number }[] = [];

  constructor(
    private readonly dir: string,
    private readonly stem: string,
    private readonly limits: BatchLimits,
  ) {}

  write(line: string): void {
    const size = Buffer.byteLength(line, 'utf8');
    if (size > this.limits.maxBytes)
      throw new UserInputError(`a batch request of ${size} bytes is over infer.batch.max_bytes (${this.limits.maxBytes})`);
    if (this.fd !== null && (this.lines >= this.limits.maxLines || this.bytes + size > this.limits.maxBytes)) this.close();
    if (this.fd === null) {
      const file = `${this.stem}.${String(this.part++).padStart(4, '0')}.jsonl`;
      this.fd = openSync(path.join(this.dir, file), 'w');
      this.names.push({ file, lines: 0, bytes: 0 });
      this.lines = 0;
      this.bytes = 0;
    }
    writeSync(this.fd, line);
    this.lines++;
    this.bytes += size;
    const last = this.names[this.names.length - 1];
    last.lines = this.lines;
    last.bytes = this.bytes;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** One run's files (none when every line is done). */
async function writeRun(options: InferOptions, run: ArmRun, dir: string, study: string, limits: BatchLimits) {
  const request = runRequest(run);
  const { rows, done } = await pendingRows(options, run);
  const replicate = run.replicate ?? 0;
  const writer = new PartWriter(dir, `${run.name}.r${replicate}`, limits);
  try {
    for (const row of rows) {
      const custom_id = formatCustomId({ study, arm: run.name, replicate, dataset: row.dataset, sampleId: row.sample_id });
      const line: BatchInputLine = { custom_id, method: 'POST', url: BATCH_URL, body: lineBody(run, request, row) };
      writer.write(JSON.stringify(line) + '\n');
    }
  } finally {
    writer.close();
  }
  const files: BatchFileEntry[] = [];
  for (const f of writer.names)
    files.push({
      ...f,
      arm: run.name,
      replicate,
      seed: run.seed ?? null,
      model: request.model,
      sha256: await sha256File(path.join(dir, f.file)),
    });
  return { files, done };
}

/** The files of an earlier batch set in `dir` (its manifest names them): the folder holds one set. */
function removeEarlierSet(dir: string): void {
  const file = path.join(dir, BATCH_MANIFEST);
  if (!existsSync(file)) return;
  const earlier = JSON.parse(readFileSync(file, 'utf8')) as Partial<BatchManifest>;
  for (const f of earlier.files ?? []) if (path.basename(f.file) === f.file) rmSync(path.join(dir, f.file), { force: true });
  rmSync(file);
}

export async function batchOut(options: InferOptions, dir: string, limits: BatchLimits): Promise<BatchOutResult> {
  if (!options.config) throw new UserInputError('--batch-out needs the study config');
  const study = studyId(options.config);
  mkdirSync(dir, { recursive: true });
  removeEarlierSet(dir);
  const files: BatchFileEntry[] = [];
  let alreadyDone = 0;
  for (const arm of options.arms) {
    if (arm.corrector) continue; // a non-LLM arm (docs/correctors.md) sends no request
    for (const run of replicateRuns(arm)) {
      const out = await writeRun(options, run, dir, study, limits);
      files.push(...out.files);
      alreadyDone += out.done;
    }
  }
  const manifest: BatchManifest = {
    format: BATCH_FORMAT,
    study,
    written_at: new Date().toISOString(),
    url: BATCH_URL,
    limits: { max_lines: limits.maxLines, max_bytes: limits.maxBytes },
    files,
  };
  const sha256 = await writeBatchManifest(options.config, dir, manifest);
  return { dir, manifest: path.join(dir, BATCH_MANIFEST), sha256, files, alreadyDone };
}
