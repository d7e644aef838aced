/**
 * Infer stage: an LLM corrects every exported OCR line, once per study arm (./arms). Without `study:` the arms
 * are the default two — RAG (p5v1 with the record's retrieval context) into results/phase5/corrections.jsonl
 * and the zero-shot baseline (v1) into results/phase2/corrections.jsonl. Resumable and deduplicated by
 * sample_id: a rerun continues where the output file ends.
 *
 *   const options = optionsFrom(config, {});
 *   const results = await run(options, {}, (backend) => createBackend(backend));
 *
 * `phase5 infer --import FILE [--arm NAME]` validates corrections made elsewhere and puts them where analyze
 * reads that arm (default: rag).
 *
 * Failures: an LLM outage (connection, timeout, 429, 5xx after the backend's retries) writes no record and
 * fails the arm retryably (`LlmUnavailableError`), so Temporal retries and the next attempt resumes —
 * until the outage has lasted `infer.outage_budget`. Per-line failures are records; more of them than
 * `infer.max_failed_share` fail the stage for good (`InferFailedError`); `--retry-failed` redoes them.
 */
import { createReadStream, existsSync, mkdirSync } from 'node:fs';
import readline from 'node:readline';
import path from 'node:path';
import { resolvePath } from '../config/load';
import { durationMs, type Config } from '../config/schema';
import { JsonlParseError, writeJsonAtomic, writeJsonlAtomic, writeJsonlAtomicAsync } from '../io/jsonl';
import {
  summarizeValidation,
  LlmUnavailableError,
  runCorrections,
  RunCorrectionsError,
  validateCorrectionsFile,
  type BackendConfig,
  type Condition,
  type LlmBackend,
  type RunCorrectionsSummary,
} from '../llm';
import { childLogger } from '../util/log';
import { UserInputError, type RunOptions, type StageHooks } from './types';
import { isFailed, readInferenceInput, type CorrectionRecord, type InferenceInputRow } from '../llm/records';
import { applyGuard, type GuardSettings } from '../llm/guard';
import { armJson } from './study-files';
import { skipsFromCounts, type Skips } from './skips';
import { findArm, type ArmRun } from './arms';
import { studyPlan, type StudyPlan } from './study-plan';
import { importFix, importHooks, readExportLines } from './import-match';
import { loadNow, type LlmLoad } from './llm-load';

const log = childLogger('infer');

export type { Condition };

export interface InferOptions {
  /** The arms to run, in order (the baseline is left out when `--phase2-dir` supplies it). */
  arms: ArmRun[];
  /** The arm an `--import` file is written to (`--arm NAME`, default rag). */
  importArm?: ArmRun;
  datasets?: string[];
  /** `phase5 infer --limit N`: only the first N lines of each selected dataset, in input order. */
  limit?: number;
  /** `phase5 infer --import FILE`. */
  importFile?: string;
  force: boolean;
  /** `phase5 infer --retry-failed`: remove the failed records and try those lines again. */
  retryFailed: boolean;
  /** An arm with a larger share of failed records fails the stage (`infer.max_failed_share`). */
  maxFailedShare: number;
  /** How long an outage may last, over retried attempts, before the stage gives up (`infer.outage_budget`). */
  outageBudgetMs: number;
  /** Lines per shard of the sharded infer workflow (`infer.shard_size`; default 256). */
  shardSize?: number;
}

/** What an attempt leaves for the next one: when the current outage began (ISO), if one is going on. */
export interface InferCheckpoint {
  outageSince?: string;
}

/** The infer stage cannot succeed by retrying: too many failed lines, or an outage longer than the budget. */
export class InferFailedError extends UserInputError {
  constructor(message: string) {
    super(message);
    this.name = 'InferFailedError';
  }
}

/** Opens the LLM backend for one arm (closed by the stage when the arm ends). */
export type OpenBackend = (config: BackendConfig) => Promise<LlmBackend>;

export function optionsFrom(config: Config, cli: RunOptions, force = false, plan: StudyPlan = studyPlan(config, cli)): InferOptions {
  return {
    arms: plan.arms,
    importArm: cli.importFile ? findArm(plan.declared, cli.arm ?? 'rag') : undefined,
    datasets: cli.datasets,
    limit: cli.limit,
    importFile: cli.importFile ? resolvePath(cli.importFile) : undefined,
    force,
    retryFailed: cli.retryFailed ?? false,
    maxFailedShare: config.infer.max_failed_share,
    outageBudgetMs: durationMs(config.infer.outage_budget),
    // A config from before the key (a running workflow's input) gets the default.
    shardSize: config.infer.shard_size ?? 256,
  };
}

export { backendConfig } from './backend';
export type { ArmRun };

export const RESULT_KEYS = [
  'model',
  'written',
  'skippedExisting',
  'succeeded',
  'failed',
  'failuresByReason',
  'promptTypes',
  'promptTokens',
  'completionTokens',
  'elapsedMs',
] as const;

/**
 * What one arm produced: the runner's counts that matter downstream (small: crosses Temporal); `skipped`:
 * duplicate input records (the later ones are not corrected) and lines recorded as failed, by reason.
 * `condition` is the arm's name (`rag` / `zero_shot` without a study; the field keeps its name so recorded histories replay).
 */
export type ArmResult = { condition: string; output: string; skipped: Skips; load?: LlmLoad } & ArmCounts;

/** The runner's counts an arm (or a shard of it) reports. */
export type ArmCounts = Pick<RunCorrectionsSummary, (typeof RESULT_KEYS)[number]>;

/** What an arm left out: duplicate sample_ids of the input, failed lines by reason. */
function armSkips(summary: RunCorrectionsSummary): Skips {
  const counts: Record<string, number> = { 'duplicate input record': summary.duplicateInput };
  for (const [reason, n] of Object.entries(summary.failuresByReason)) counts[`failed: ${reason}`] = n;
  return skipsFromCounts(counts, { 'duplicate input record': summary.duplicateInputIds ?? [] });
}

/**
 * `--limit N` (with `--datasets`): the records of the first N distinct sample_ids of each selected dataset, in
 * input order (duplicates of those kept, so the runner still counts them). Without a limit: the input file.
 */
async function selectedInput(options: InferOptions, input: string): Promise<string | InferenceInputRow[]> {
  if (options.limit === undefined) return input;
  const wanted = options.datasets ? new Set(options.datasets) : null;
  const taken = new Map<string, Set<string>>();
  return (await readInferenceInput(input)).filter((r) => {
    if (wanted && !wanted.has(r.dataset)) return false;
    const ids = taken.get(r.dataset) ?? new Set<string>();
    taken.set(r.dataset, ids);
    if (ids.has(r.sample_id)) return true;
    if (ids.size >= (options.limit as number)) return false;
    ids.add(r.sample_id);
    return true;
  });
}

export interface ImportResult {
  imported: number;
  failed: number;
  byDataset: Record<string, number>;
  output: string;
  /** With the arm's guard on: the decisions taken on the imported lines that carried none (`kept`, `trimmed`, `fell_back:<reason>`). */
  guard?: Record<string, number>;
  /** What the import decided on its own (fields set from the arm's prompt, no export to match against). */
  notes?: string[];
}

/** Per arm name, its result; or the import. */
export type InferResult = { imported: ImportResult } | Partial<Record<string, ArmResult>>;

/** Every arm in order, or the import when `importFile` is set. */
export async function run(options: InferOptions, hooks: StageHooks, openBackend: OpenBackend): Promise<InferResult> {
  if (options.importFile) return { imported: await importCorrections(options) };
  const out: Partial<Record<string, ArmResult>> = {};
  for (const arm of options.arms) out[arm.name] = await runArm(options, arm, hooks, openBackend);
  return out;
}

/** `runArm` for the arm named `name` (the activity's `condition` argument is an arm name). */
export async function runCondition(
  options: InferOptions,
  name: string,
  hooks: StageHooks<InferCheckpoint>,
  openBackend: OpenBackend,
): Promise<ArmResult> {
  return runArm(options, findArm(options.arms, name), hooks, openBackend);
}

/** Correct every line of the arm's input with its prompt and LLM; `onProgress` counts records in the output. */
export async function runArm(
  options: InferOptions,
  arm: ArmRun,
  hooks: StageHooks<InferCheckpoint>,
  openBackend: OpenBackend,
): Promise<ArmResult> {
  const { output } = arm;
  if (!existsSync(arm.input)) throw new UserInputError(`no ${arm.input} — run \`phase5 export\` first`);
  mkdirSync(path.dirname(output), { recursive: true });
  if (options.force && existsSync(output)) writeJsonlAtomic(output, []);
  const backend = await openBackend(arm.backend());
  let summary: RunCorrectionsSummary;
  try {
    summary = await correct(options, arm, backend, hooks);
  } finally {
    await backend.close();
  }
  log.info(
    { arm: arm.name, output, written: summary.written, failed: summary.failed },
    `infer ${arm.name}: ${summary.written} written, ${summary.failed} failed, ${summary.skippedExisting} already done`,
  );
  await assertFailedShare(options, arm.name, arm.output);
  const counts = Object.fromEntries(RESULT_KEYS.map((k) => [k, summary[k]])) as Pick<RunCorrectionsSummary, (typeof RESULT_KEYS)[number]>;
  return { condition: arm.name, output, ...counts, skipped: armSkips(summary) };
}

async function correct(
  options: InferOptions,
  arm: ArmRun,
  backend: LlmBackend,
  hooks: StageHooks<InferCheckpoint>,
): Promise<RunCorrectionsSummary> {
  return correctLines(options, arm, backend, hooks, {
    input: await selectedInput(options, arm.input),
    output: arm.output,
    datasets: options.datasets,
    progress: 'log',
  });
}

/** What one run of the corrections runner works on: an arm's whole input, or one shard's lines. */
export interface CorrectTarget {
  input: string | InferenceInputRow[];
  output: string;
  datasets?: string[];
  /** Checkpoint (fsync) every N lines (a shard: 1, so a resume repeats only the lines in flight). */
  checkpointEvery?: number;
  progress: 'log' | 'silent';
}

/** Run the corrections runner on `target` with the arm's prompt and guard, and the stage's failure semantics. */
export async function correctLines(
  options: InferOptions,
  arm: ArmRun,
  backend: LlmBackend,
  hooks: StageHooks<InferCheckpoint>,
  target: CorrectTarget,
): Promise<RunCorrectionsSummary> {
  const attemptStarted = Date.now();
  try {
    const summary = await runCorrections({
      inputPath: target.input,
      outputPath: target.output,
      backend,
      condition: arm.prompt,
      label: arm.name,
      retryFailed: options.retryFailed,
      datasets: target.datasets,
      guard: arm.guard,
      signal: hooks.signal,
      progress: target.progress,
      checkpointEvery: target.checkpointEvery,
      onProgress: (done, total) => {
        const load = backend.load?.();
        if (load) hooks.onLoad?.(loadNow(load));
        hooks.onProgress?.(done, total);
      },
    });
    // Stopped early (cancelled or superseded): not a completed stage.
    if (summary.aborted) throw new Error(`infer ${arm.name} stopped before the end (${summary.remaining} samples left)`);
    return summary;
  } catch (err) {
    // A malformed inference_input.jsonl line (file:line in the message) does not get better by retrying.
    if (err instanceof JsonlParseError) throw new UserInputError(err.message);
    if (err instanceof LlmUnavailableError) throw outageFailure(err, options, backend, hooks, attemptStarted);
    // Every line failing for a reason of its own (a wrong model name: 404 on each prompt) — retrying cannot help.
    if (err instanceof RunCorrectionsError) throw new InferFailedError(`${err.message} (${JSON.stringify(err.summary.failuresByReason)})`);
    throw err;
  }
}

const outageFailures = new WeakSet<Error>();

/**
 * Whether `err` is the stage's failure for an LLM endpoint that did not serve (retryable, or past the outage
 * budget) — not a bad prompt or input. A worker with its own endpoint pauses on it (src/llm/endpoint-health.ts).
 */
export function isOutageFailure(err: unknown): boolean {
  return err instanceof Error && outageFailures.has(err);
}

/**
 * The endpoint is not serving. Until the outage has lasted `outageBudgetMs` — measured from the first attempt
 * that made no progress, carried across attempts in the checkpoint — the error stays retryable.
 */
function outageFailure(
  err: LlmUnavailableError,
  options: InferOptions,
  backend: LlmBackend,
  hooks: StageHooks<InferCheckpoint>,
  attemptStarted: number,
): Error {
  // Lines finished in this attempt: the outage began just now. None: it goes on from the previous attempt's.
  const progressed = err.summary.written > 0;
  const previous = hooks.resumeFrom?.outageSince ? Date.parse(hooks.resumeFrom.outageSince) : NaN;
  const since = progressed ? Date.now() : Number.isFinite(previous) ? previous : attemptStarted;
  hooks.checkpoint?.({ outageSince: new Date(since).toISOString() });
  const lasted = Date.now() - since;
  const o = err.failure;
  const what = `${o.reason}: ${oneLine(o.message)}`;
  if (lasted >= options.outageBudgetMs) {
    return outage(
      new InferFailedError(
        `infer ${err.summary.label}: the LLM at ${backend.id} has not served for ${formatMs(lasted)} (infer.outage_budget ${formatMs(options.outageBudgetMs)}; last: ${what}); ` +
          `${err.summary.remaining} line(s) left — bring the endpoint up and rerun \`phase5 infer\``,
      ),
    );
  }
  const retryable = new Error(
    `${err.message} — retrying (outage for ${formatMs(lasted)} of infer.outage_budget ${formatMs(options.outageBudgetMs)})`,
  );
  retryable.name = 'LlmUnavailableError';
  return outage(retryable);
}

function outage(err: Error): Error {
  outageFailures.add(err);
  return err;
}

/** A server's message can span lines (an HTML error page): the reason must stay one line. */
function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function formatMs(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  return `${(ms / 60_000).toFixed(ms < 600_000 ? 1 : 0)}m`;
}

/** Failed records of the selected datasets in a condition's output, by reason, with the first one's detail. */
export async function countFailedRecords(
  file: string,
  datasets?: readonly string[],
): Promise<{ records: number; failed: number; byReason: Record<string, number>; first: string | null }> {
  const wanted = datasets ? new Set(datasets) : null;
  const res = { records: 0, failed: 0, byReason: {} as Record<string, number>, first: null as string | null };
  const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of rl) {
    if (!text.trim()) continue;
    const r = JSON.parse(text) as { sample_id: string; dataset: string; error?: { reason?: string; message?: string } | null };
    if (wanted && !wanted.has(r.dataset)) continue;
    res.records++;
    if (!r.error) continue;
    res.failed++;
    const reason = r.error.reason ?? 'unknown';
    res.byReason[reason] = (res.byReason[reason] ?? 0) + 1;
    res.first ??= `${r.sample_id}: ${reason}${r.error.message ? ` — ${oneLine(r.error.message)}` : ''}`;
  }
  return res;
}

/** More failed lines than `max_failed_share` would bias the comparison (they score as raw OCR): fail for good. */
export async function assertFailedShare(options: InferOptions, name: string, output: string): Promise<void> {
  const c = await countFailedRecords(output, options.datasets);
  if (c.records === 0 || c.failed / c.records <= options.maxFailedShare) return;
  const pct = (x: number) => `${Number((x * 100).toFixed(1))}%`;
  const reasons = Object.entries(c.byReason)
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${n} ${r}`)
    .join(', ');
  throw new InferFailedError(
    `infer ${name}: ${c.failed} of ${c.records} lines failed (${pct(c.failed / c.records)}, over infer.max_failed_share ${pct(options.maxFailedShare)}): ` +
      `${reasons} — first: ${c.first}; fix the cause, then \`phase5 infer --retry-failed\``,
  );
}

/**
 * Validate every line of `importFile`, then write it where analyze reads the import's arm (default rag). With the
 * arm's guard on, lines that carry no guard decision go through trimming and the guard like the runner's lines
 * (from `raw_output`, kept as `raw_text`), so an imported arm is scored like one inferred here. A study arm
 * imported before its export gets its arm.json now, so the analysis finds it.
 */
export async function importCorrections(options: InferOptions): Promise<ImportResult> {
  const file = options.importFile;
  if (!file) throw new UserInputError('no file to import (--import FILE)');
  if (!existsSync(file)) throw new UserInputError(`import file not found: ${file}`);
  const arm = options.importArm;
  if (!arm) throw new UserInputError('no arm to import into (--arm NAME)');
  const exported = await readExportLines(arm.input);
  const v = await validateCorrectionsFile(file, importHooks(arm, exported));
  if (!v.ok) throw new UserInputError(`import rejected — ${summarizeValidation(v, importFix)}`);
  const notes = importNotes(v.filled, arm, exported !== null);
  for (const note of notes) log.warn(`import: ${note}`);
  const guarded = guardImported(v.records, arm.guard);
  await writeJsonlAtomicAsync(arm.output, guarded.records); // canonical key order; unknown keys dropped
  if (v.extraKeys.length) log.warn({ extraKeys: v.extraKeys }, 'import: keys outside the schema were dropped');
  writeMissingArmJson(arm);
  return {
    imported: v.records.length,
    failed: v.failed,
    byDataset: v.byDataset,
    output: arm.output,
    ...(guarded.decisions ? { guard: guarded.decisions } : {}),
    ...(notes.length ? { notes } : {}),
  };
}

/** What the import did on its own: prompt fields set from the arm, lines not checked against an export. */
function importNotes(filled: Record<string, number>, arm: ArmRun, checked: boolean): string[] {
  const notes: string[] = [];
  const fields = Object.keys(filled);
  if (fields.length) {
    const n = Math.max(...Object.values(filled));
    notes.push(`${n.toLocaleString('en-US')} line(s) had no ${fields.join(' / ')}: set from arm ${arm.name}'s prompt (${arm.prompt})`);
  }
  if (!checked) notes.push(`arm ${arm.name} has no export yet (${arm.input}): the lines were not matched against it`);
  return notes;
}

/** Trim + guard the imported lines that carry no decision (failed lines stay as they are); null decisions with the guard off. */
export function guardImported(
  records: CorrectionRecord[],
  guard: GuardSettings | undefined,
): { records: CorrectionRecord[]; decisions: Record<string, number> | null } {
  if (!guard?.enabled) return { records, decisions: null };
  const decisions: Record<string, number> = {};
  const out = records.map((r) => {
    if (r.guard !== undefined || isFailed(r)) return r;
    const raw = r.raw_output;
    const g = applyGuard(raw, r.ocr_text, guard);
    decisions[g.guard] = (decisions[g.guard] ?? 0) + 1;
    return { ...r, corrected_text: g.corrected_text, raw_text: raw, guard: g.guard };
  });
  return { records: out, decisions };
}

/** A study arm's arm.json, when the import comes before the arm's export wrote one (the default arms have none). */
function writeMissingArmJson(arm: ArmRun): void {
  if (!arm.dir || existsSync(path.join(arm.dir, 'arm.json'))) return;
  mkdirSync(arm.dir, { recursive: true });
  writeJsonAtomic(path.join(arm.dir, 'arm.json'), armJson(arm, undefined));
}
