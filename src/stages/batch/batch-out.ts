/**
 * `phase5 infer --batch-out DIR`: every arm × replicate × selected line not yet corrected, as the request infer
 * would send it, in OpenAI Batch JSONL files — one series per arm and replicate (`<arm>.r<r>.<part>.jsonl`),
 * cut at `infer.batch.max_lines` lines / `infer.batch.max_bytes` bytes — and `batch_manifest.json` beside them.
 *
 *   const { manifest } = await batchOut(options, dir);
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { type InferenceInputRow } from '../../llm/records';
import { readInferenceInput } from '../../llm/record-files';
import { sha256File } from '../../util/hash';
import type { ArmRun } from '../study/arms';
import { selectRows, type InferOptions } from '../infer/infer';
import { replicateRuns } from '../study/replicates';
import { UserInputError } from '../shared/types';
import { BATCH_FORMAT, BATCH_MANIFEST, studyId, writeBatchManifest, type BatchFileEntry, type BatchManifest } from './batch-manifest';
import { BatchParts, partFile, type BatchLimits } from './batch-parts';
import { BATCH_URL, inputLine, runRequest } from './batch-request';
import type { BatchOutResult } from './types';
import { doneIds } from './done-ids';

/** One run's lines to ask for: the selection, first of each sample_id, minus those with a record. */
export async function pendingRows(options: InferOptions, run: ArmRun): Promise<{ rows: InferenceInputRow[]; done: number }> {
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

/** The runs a batch set asks for: every replicate of every LLM arm (a non-LLM arm, docs/correctors.md, sends none). */
export function batchRuns(options: InferOptions): ArmRun[] {
  return options.arms.filter((arm) => !arm.corrector).flatMap((arm) => replicateRuns(arm));
}

/** A series of part files, cut as ./batch-parts.ts says. */
class PartWriter {
  private fd: number | null = null;
  private readonly parts: BatchParts;

  constructor(
    private readonly dir: string,
    private readonly run: ArmRun,
    limits: BatchLimits,
  ) {
    this.parts = new BatchParts(limits);
  }

  write(line: string): void {
    if (this.parts.add(Buffer.byteLength(line, 'utf8'))) {
      this.close();
      this.fd = openSync(path.join(this.dir, this.file(this.parts.parts.length - 1)), 'w');
    }
    writeSync(this.fd!, line);
  }

  private file(part: number): string {
    return partFile(this.run.name, this.run.replicate ?? 0, part);
  }

  get names(): { file: string; lines: number; bytes: number }[] {
    return this.parts.parts.map((p, i) => ({ file: this.file(i), ...p }));
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
  const writer = new PartWriter(dir, run, limits);
  try {
    for (const row of rows) writer.write(inputLine(study, run, request, row));
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
  for (const run of batchRuns(options)) {
    const out = await writeRun(options, run, dir, study, limits);
    files.push(...out.files);
    alreadyDone += out.done;
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
