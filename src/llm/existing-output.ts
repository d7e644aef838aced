/** The output a run resumes: recovered, scanned for the samples it holds, failures dropped to retry, checked to be this run's. */
import { isBuiltin } from '../prompts/templates';
import { createReadStream } from 'node:fs';
import readline from 'node:readline';
import { recoverJsonl, writeFileAtomic } from '../io/jsonl';
import { childLogger } from '../util/log';
import type { PromptKind, RunCorrectionsOptions } from './runner-types';

const log = childLogger('infer');

export interface ExistingOutput {
  /** Records in the output after recovery. */
  records: number;
  ids: Set<string>;
  failedIds: Set<string>;
  duplicates: number;
  /** model → first line, prompt_type → first line (to refuse mixing runs in one file). */
  models: Map<string, number>;
  promptTypes: Map<string, number>;
  /** prompt_version → first line (a resumed file keeps one prompt). */
  promptVersions: Map<string, number>;
  /** First line of a successful record with / without the guard's `guard` key (a file is guarded or not). */
  guardedLine: number | null;
  unguardedLine: number | null;
}

async function scanOutput(file: string): Promise<ExistingOutput> {
  const recovered = recoverJsonl(file);
  if (recovered.truncatedBytes > 0)
    log.warn({ file, truncatedBytes: recovered.truncatedBytes }, 'cut a partial last line (interrupted write) before resuming');
  const res: ExistingOutput = {
    records: recovered.records,
    ids: new Set(),
    failedIds: new Set(),
    duplicates: 0,
    models: new Map(),
    promptTypes: new Map(),
    promptVersions: new Map(),
    guardedLine: null,
    unguardedLine: null,
  };
  if (recovered.records === 0) return res;
  const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line++;
    if (!text.trim()) continue;
    let v: { sample_id?: unknown; error?: unknown; model?: unknown; prompt_type?: unknown; prompt_version?: unknown; guard?: unknown };
    try {
      v = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file}:${line}: invalid JSON in existing output (${(err as Error).message}); fix or remove the line to resume`);
    }
    if (typeof v?.sample_id !== 'string' || !v.sample_id)
      throw new Error(`${file}:${line}: existing output record has no string "sample_id"`);
    if (res.ids.has(v.sample_id)) res.duplicates++;
    res.ids.add(v.sample_id);
    if (v.error !== null && v.error !== undefined && v.error !== '') res.failedIds.add(v.sample_id);
    else if (v.guard !== undefined) res.guardedLine ??= line;
    else res.unguardedLine ??= line;
    if (typeof v.model === 'string' && !res.models.has(v.model)) res.models.set(v.model, line);
    if (typeof v.prompt_type === 'string' && !res.promptTypes.has(v.prompt_type)) res.promptTypes.set(v.prompt_type, line);
    if (typeof v.prompt_version === 'string' && !res.promptVersions.has(v.prompt_version)) res.promptVersions.set(v.prompt_version, line);
  }
  return res;
}

/** Rewrite the output without the failed records of `ids` (atomic: temp file + rename). Returns how many were removed. */
async function dropFailed(file: string, ids: Set<string>): Promise<number> {
  const kept: string[] = [];
  let removed = 0;
  const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of rl) {
    if (!text.trim()) continue;
    const v = JSON.parse(text) as { sample_id: string; error?: unknown };
    if (ids.has(v.sample_id) && v.error !== null && v.error !== undefined && v.error !== '') removed++;
    else kept.push(text + '\n');
  }
  if (removed > 0) writeFileAtomic(file, kept.join(''));
  return removed;
}

/** 2. Existing output: recover, optionally drop failures to retry, and check it belongs to this run. */
export async function openExistingOutput(
  opts: RunCorrectionsOptions,
  seenInput: Set<string>,
): Promise<{ existing: ExistingOutput; retriedFailed: number }> {
  const { outputPath } = opts;
  let existing = await scanOutput(outputPath);
  let retriedFailed = 0;
  if (opts.retryFailed) {
    const toRetry = new Set([...existing.failedIds].filter((id) => seenInput.has(id)));
    if (toRetry.size > 0) {
      retriedFailed = await dropFailed(outputPath, toRetry);
      existing = await scanOutput(outputPath);
      log.info({ retriedFailed }, `removed ${retriedFailed} failed record(s) to retry them`);
    }
  }
  assertSameExperiment(existing, outputPath, opts.backend.model, opts.prompt);
  assertSamePrompt(existing, outputPath, opts);
  assertSameGuard(existing, outputPath, opts.guard?.enabled === true);
  if (existing.duplicates > 0) log.warn({ file: outputPath, duplicates: existing.duplicates }, 'existing output has duplicate sample_ids');
  return { existing, retriedFailed };
}

/** A resumed file must stay one experiment: same model, same kind of prompt. */
function assertSameExperiment(existing: ExistingOutput, outputPath: string, model: string, kind: PromptKind): void {
  for (const [had, line] of existing.models) {
    if (had !== model) {
      throw new Error(
        `${outputPath}:${line}: existing output was produced by model "${had}", this run uses "${model}"; use another output path or remove the file to start over`,
      );
    }
  }
  const allowedTypes = kind === 'rag' ? ['rag', 'zero_shot_fallback'] : ['zero_shot'];
  for (const [type, line] of existing.promptTypes) {
    if (!allowedTypes.includes(type)) {
      throw new Error(
        `${outputPath}:${line}: existing output holds prompt_type "${type}", which does not belong to a "${kind}" arm; use another output path`,
      );
    }
  }
}

/** A resumed file is guarded throughout or not at all, so its corrected_text means one thing. */
function assertSameGuard(existing: ExistingOutput, outputPath: string, guarded: boolean): void {
  const line = guarded ? existing.unguardedLine : existing.guardedLine;
  if (line === null) return;
  const had = guarded ? 'without' : 'with';
  throw new Error(
    `${outputPath}:${line}: existing output was written ${had} the over-correction guard, this run has it ${guarded ? 'on' : 'off'}; use another output path or remove the file to start over`,
  );
}

/**
 * A resumed file keeps one prompt: its records' versions are the template's (and, for a built-in, the zero-shot
 * fallback's `v1`). A new template version needs a new output, or its lines would be skipped as done.
 */
function assertSamePrompt(existing: ExistingOutput, outputPath: string, opts: RunCorrectionsOptions): void {
  const t = opts.template;
  const builtin = !t || isBuiltin(t);
  const allowed = new Set([t?.version ?? (opts.prompt === 'rag' ? 'p5v1' : 'v1'), ...(builtin ? ['v1'] : [])]);
  for (const [version, line] of existing.promptVersions) {
    if (!allowed.has(version))
      throw new Error(
        `${outputPath}:${line}: existing output was written with prompt version "${version}", this run sends "${[...allowed][0]}"; use another output path or remove the file to start over`,
      );
  }
}
