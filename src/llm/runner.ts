/**
 * The correction runner: inference_input records → prompts → backend → corrections.jsonl.
 *
 * Resumable and deduplicated by sample_id: on start the output is recovered (a torn last line is cut),
 * the sample_ids already in it are skipped, and new records are appended with `JsonlAppender`,
 * written every `checkpointEvery` records or `checkpointMs` and fsync'd at most every `checkpointMs`. A call that fails for a reason of
 * the line (a 400 for that prompt, an empty answer, a local error) is written as a failed record
 * (`corrected_text: ""`, `error: {reason, status, message, attempts}`); a later run with `retryFailed` removes
 * those from the file and tries them again. A call that fails because the endpoint is not serving (connection,
 * timeout, 429, 5xx, a non-completion body — `isOutage`) is never written: the run stops, keeps what succeeded
 * and throws `LlmUnavailableError`, so the caller can retry the run later and it resumes. Records are written in
 * input order whatever the concurrency (a small reorder buffer), so outputs are reproducible.
 */
import { setMaxListeners } from 'node:events';
import { createReadStream } from 'node:fs';
import readline from 'node:readline';
import { JsonlAppender, recoverJsonl, writeFileAtomic } from '../io/jsonl';
import { childLogger } from '../util/log';
import { createProgress } from '../util/progress';
import { buildPrompt } from '../prompts/builder';
import { cleanOutput } from './clean';
import { applyGuard, type GuardSettings } from './guard';
import { runPool } from './pool';
import { InferenceInputSchema, describeZodError, readInferenceInput, type CorrectionRecord, type InferenceInputRow } from './records';
import { isOutage, LlmError, type FailureInfo, type LlmBackend } from './types';

export type Condition = 'rag' | 'zero_shot';

export interface RunCorrectionsOptions {
  /** inference_input.jsonl, or the records themselves. */
  inputPath: string | readonly InferenceInputRow[];
  /** corrections.jsonl (created or resumed). */
  outputPath: string;
  backend: LlmBackend;
  /** `rag` (Phase 5: p5v1 with the record's retrieval_context) or `zero_shot` (Phase 2 baseline, v1). */
  condition: Condition;
  /** What log lines, progress and errors call this run (a study arm's name; default: the condition). */
  label?: string;
  /** Parallel calls (default: the backend's own concurrency). */
  concurrency?: number;
  /** Max tokens per answer (default: the backend's). */
  maxTokens?: number;
  /** Only these datasets (default: all in the input). */
  datasets?: readonly string[];
  /** Attempt at most this many new samples in this run (after skipping the ones already done). */
  limit?: number;
  /** Remove failed records of the selected samples from the output and try them again. */
  retryFailed?: boolean;
  /** Stop early (activity cancellation): no new calls start; finished ones are written and checkpointed. */
  signal?: AbortSignal;
  /** Called after each written record and at start/end: (done incl. existing, total incl. existing). */
  onProgress?: (done: number, total: number) => void;
  /** Write every N records (default 100) … */
  checkpointEvery?: number;
  /** … or every N ms (default 2000), whichever comes first; fsync at most every N ms. A crash of the process
   *  loses the records not yet written, one of the machine those not yet fsync'd. */
  checkpointMs?: number;
  /** Give up (throw) after this many consecutive failures — a dead server or wrong model (default 20; 0 = never). */
  maxConsecutiveFailures?: number;
  /** Progress display (default: bar in a TTY, log lines otherwise). */
  progress?: 'bar' | 'log' | 'silent';
  /**
   * Over-correction guard (./guard). Enabled: `corrected_text` is the trimmed/guarded text and each successful
   * record also carries `raw_text` and `guard` after `raw_output`. Absent or disabled: records exactly as before.
   * Failed records never carry the guard's keys (the guard did not run; `error` says why).
   */
  guard?: GuardSettings;
}

export interface RunCorrectionsSummary {
  outputPath: string;
  condition: Condition;
  /** The run's name in messages: the arm (options.label), else the condition. */
  label: string;
  backend: string;
  model: string;
  /** Input records after the dataset filter. */
  inputRecords: number;
  /** Input records whose sample_id appeared earlier in the input (skipped). */
  duplicateInput: number;
  /** The first few of those duplicate sample_ids (examples for the stage's summary). */
  duplicateInputIds: string[];
  /** Samples already in the output (skipped). */
  skippedExisting: number;
  /** Failed records removed from the output to be retried (`retryFailed`). */
  retriedFailed: number;
  /** Records appended in this run (successes + recorded failures). */
  written: number;
  succeeded: number;
  failed: number;
  failuresByReason: Record<string, number>;
  promptTypes: Record<string, number>;
  promptTokens: number;
  completionTokens: number;
  elapsedMs: number;
  /** Samples still missing from the output (limit reached, aborted, or gave up). */
  remaining: number;
  aborted: boolean;
  /** The first outage failure when the run stopped because the endpoint was not serving (null otherwise). */
  outage: FailureInfo | null;
  /** Only with the guard enabled: records written in this run by guard decision (`kept`, `fell_back:empty`, …). */
  guardDecisions?: Record<string, number>;
}

export class RunCorrectionsError extends Error {
  constructor(message: string, readonly summary: RunCorrectionsSummary) {
    super(message);
    this.name = 'RunCorrectionsError';
  }
}

/** The endpoint stopped serving (after the backend's retries); nothing was recorded for the lines left. */
export class LlmUnavailableError extends RunCorrectionsError {
  constructor(message: string, summary: RunCorrectionsSummary, readonly failure: FailureInfo) {
    super(message, summary);
    this.name = 'LlmUnavailableError';
  }
}

const log = childLogger('infer');

interface ExistingOutput {
  /** Records in the output after recovery. */
  records: number;
  ids: Set<string>;
  failedIds: Set<string>;
  duplicates: number;
  /** model → first line, prompt_type → first line (to refuse mixing runs in one file). */
  models: Map<string, number>;
  promptTypes: Map<string, number>;
  /** First line of a successful record with / without the guard's `guard` key (a file is guarded or not). */
  guardedLine: number | null;
  unguardedLine: number | null;
}

async function scanOutput(file: string): Promise<ExistingOutput> {
  const recovered = recoverJsonl(file);
  if (recovered.truncatedBytes > 0) log.warn({ file, truncatedBytes: recovered.truncatedBytes }, 'cut a partial last line (interrupted write) before resuming');
  const res: ExistingOutput = { records: recovered.records, ids: new Set(), failedIds: new Set(), duplicates: 0, models: new Map(), promptTypes: new Map(), guardedLine: null, unguardedLine: null };
  if (recovered.records === 0) return res;
  const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line++;
    if (!text.trim()) continue;
    let v: { sample_id?: unknown; error?: unknown; model?: unknown; prompt_type?: unknown; guard?: unknown };
    try {
      v = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file}:${line}: invalid JSON in existing output (${(err as Error).message}); fix or remove the line to resume`);
    }
    if (typeof v?.sample_id !== 'string' || !v.sample_id) throw new Error(`${file}:${line}: existing output record has no string "sample_id"`);
    if (res.ids.has(v.sample_id)) res.duplicates++;
    res.ids.add(v.sample_id);
    if (v.error !== null && v.error !== undefined && v.error !== '') res.failedIds.add(v.sample_id);
    else if (v.guard !== undefined) res.guardedLine ??= line;
    else res.unguardedLine ??= line;
    if (typeof v.model === 'string' && !res.models.has(v.model)) res.models.set(v.model, line);
    if (typeof v.prompt_type === 'string' && !res.promptTypes.has(v.prompt_type)) res.promptTypes.set(v.prompt_type, line);
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

function failureOf(err: unknown): FailureInfo {
  if (err instanceof LlmError) return err.toInfo();
  return { reason: 'unexpected', status: null, message: err instanceof Error ? `${err.name}: ${err.message}` : String(err), attempts: 1 };
}

export async function runCorrections(opts: RunCorrectionsOptions): Promise<RunCorrectionsSummary> {
  const started = Date.now();
  const { backend, condition, outputPath } = opts;
  if (condition !== 'rag' && condition !== 'zero_shot') throw new Error(`runCorrections: condition must be "rag" or "zero_shot", got "${condition}"`);

  const { input, unique, seenInput, duplicateInput, duplicateInputIds } = await readInput(opts);
  const { existing, retriedFailed } = await openExistingOutput(opts, seenInput);
  const skippedExisting = unique.filter((r) => existing.ids.has(r.sample_id)).length;
  const notDone = unique.filter((r) => !existing.ids.has(r.sample_id));
  const pending = opts.limit !== undefined ? notDone.slice(0, Math.max(0, opts.limit)) : notDone;

  const summary: RunCorrectionsSummary = {
    outputPath, condition, label: opts.label ?? condition, backend: backend.id, model: backend.model,
    inputRecords: input.length, duplicateInput, duplicateInputIds, skippedExisting, retriedFailed,
    written: 0, succeeded: 0, failed: 0, failuresByReason: {}, promptTypes: {},
    promptTokens: 0, completionTokens: 0, elapsedMs: 0, remaining: notDone.length, aborted: false, outage: null,
    ...(opts.guard?.enabled ? { guardDecisions: {} } : {}),
  };
  const total = skippedExisting + pending.length;
  opts.onProgress?.(skippedExisting, total);
  if (pending.length === 0) {
    summary.elapsedMs = Date.now() - started;
    log.info({ ...summary }, `nothing to do: all ${skippedExisting} sample(s) already in ${outputPath}`);
    return summary;
  }

  const { gaveUp, stopped } = await runPending(opts, pending, summary, existing.records, skippedExisting, total);
  summary.remaining = notDone.length - summary.written;
  summary.aborted = stopped && !gaveUp && !summary.outage;
  summary.elapsedMs = Date.now() - started;
  opts.onProgress?.(skippedExisting + summary.written, total);
  return reportRun(summary, gaveUp);
}

interface RunInput {
  /** Validated records after the dataset filter. */
  input: InferenceInputRow[];
  /** The first record of each sample_id, in input order. */
  unique: InferenceInputRow[];
  seenInput: Set<string>;
  duplicateInput: number;
  duplicateInputIds: string[];
}

/** 1. Input: validated records, filtered by dataset, deduplicated by sample_id. */
async function readInput(opts: RunCorrectionsOptions): Promise<RunInput> {
  let input = await loadInputRecords(opts.inputPath);
  if (opts.datasets) {
    const wanted = new Set(opts.datasets);
    input = input.filter((r) => wanted.has(r.dataset));
  }
  const seenInput = new Set<string>();
  let duplicateInput = 0;
  const duplicateInputIds: string[] = [];
  const unique: InferenceInputRow[] = [];
  for (const r of input) {
    if (seenInput.has(r.sample_id)) {
      if (duplicateInput++ < 3) duplicateInputIds.push(r.sample_id);
    } else {
      seenInput.add(r.sample_id);
      unique.push(r);
    }
  }
  if (duplicateInput > 0) log.warn({ duplicateInput }, `input has ${duplicateInput} duplicate sample_id(s); only the first of each is used`);
  return { input, unique, seenInput, duplicateInput, duplicateInputIds };
}

async function loadInputRecords(inputPath: RunCorrectionsOptions['inputPath']): Promise<InferenceInputRow[]> {
  if (typeof inputPath === 'string') return readInferenceInput(inputPath);
  return inputPath.map((r, i) => {
    const parsed = InferenceInputSchema.safeParse(r);
    if (!parsed.success) throw new Error(`input record #${i + 1}: ${describeZodError(parsed.error)}`);
    return parsed.data;
  });
}

/** 2. Existing output: recover, optionally drop failures to retry, and check it belongs to this run. */
async function openExistingOutput(opts: RunCorrectionsOptions, seenInput: Set<string>): Promise<{ existing: ExistingOutput; retriedFailed: number }> {
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
  assertSameExperiment(existing, outputPath, opts.backend.model, opts.condition);
  assertSameGuard(existing, outputPath, opts.guard?.enabled === true);
  if (existing.duplicates > 0) log.warn({ file: outputPath, duplicates: existing.duplicates }, 'existing output has duplicate sample_ids');
  return { existing, retriedFailed };
}

/** A resumed file must stay one experiment: same model, same condition. */
function assertSameExperiment(existing: ExistingOutput, outputPath: string, model: string, condition: Condition): void {
  for (const [had, line] of existing.models) {
    if (had !== model) {
      throw new Error(`${outputPath}:${line}: existing output was produced by model "${had}", this run uses "${model}"; use another output path or remove the file to start over`);
    }
  }
  const allowedTypes = condition === 'rag' ? ['rag', 'zero_shot_fallback'] : ['zero_shot'];
  for (const [type, line] of existing.promptTypes) {
    if (!allowedTypes.includes(type)) {
      throw new Error(`${outputPath}:${line}: existing output holds prompt_type "${type}", which does not belong to condition "${condition}"; use another output path`);
    }
  }
}

/** A resumed file is guarded throughout or not at all, so its corrected_text means one thing. */
function assertSameGuard(existing: ExistingOutput, outputPath: string, guarded: boolean): void {
  const line = guarded ? existing.unguardedLine : existing.guardedLine;
  if (line === null) return;
  const had = guarded ? 'without' : 'with';
  throw new Error(`${outputPath}:${line}: existing output was written ${had} the over-correction guard, this run has it ${guarded ? 'on' : 'off'}; use another output path or remove the file to start over`);
}

/**
 * 3. Run: pool of calls; results go through a reorder buffer so the file follows input order.
 * `stopped`: the run's stop signal fired (outer abort, or giving up).
 */
async function runPending(
  opts: RunCorrectionsOptions,
  pending: readonly InferenceInputRow[],
  summary: RunCorrectionsSummary,
  existingRecords: number,
  skippedExisting: number,
  total: number,
): Promise<{ gaveUp: string | null; stopped: boolean }> {
  const concurrency = opts.concurrency ?? opts.backend.concurrency;
  const appender = new JsonlAppender(opts.outputPath, existingRecords);
  const progress = createProgress({ label: `infer ${opts.label ?? opts.condition}`, total, start: skippedExisting, mode: opts.progress });
  const stop = new AbortController();
  // One short-lived listener per in-flight call is expected here; lift Node's leak warning accordingly.
  setMaxListeners(Math.max(10, concurrency * 2 + 10), stop.signal);
  const onOuterAbort = () => stop.abort();
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (opts.signal?.aborted) stop.abort();

  const writer = new OrderedWriter(appender, pending.length, opts.checkpointEvery ?? 100, opts.checkpointMs ?? 2000, () => {
    summary.written++;
    progress.tick();
    opts.onProgress?.(skippedExisting + summary.written, total);
  });
  const calls = new CorrectionCalls(opts, summary, stop, opts.maxConsecutiveFailures ?? 20);
  try {
    await runPool(pending, concurrency, (r) => calls.correct(r), { signal: stop.signal, onResult: (rec, i) => writer.add(i, rec) });
  } finally {
    writer.flush(true);
    appender.close();
    progress.stop();
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
  return { gaveUp: calls.gaveUp, stopped: stop.signal.aborted };
}

/** Writes records in input order whatever order they finish in; checkpoints every N records or ms. */
class OrderedWriter {
  private readonly buffer = new Map<number, CorrectionRecord | null>();
  private nextToWrite = 0;
  private sinceCheckpoint = 0;
  private lastCheckpoint = Date.now();
  private lastSync = Date.now();

  constructor(
    private readonly appender: JsonlAppender,
    private readonly count: number,
    private readonly checkpointEvery: number,
    private readonly checkpointMs: number,
    private readonly onWritten: () => void,
  ) {}

  add(i: number, rec: CorrectionRecord | null): void {
    this.buffer.set(i, rec);
    this.flush(false);
  }

  /** Write what is ready; `force` (at the end) skips the gaps left by calls that never ran and always checkpoints. */
  flush(force: boolean): void {
    while (this.buffer.has(this.nextToWrite) || (force && this.nextToWrite < this.count)) {
      const rec = this.buffer.get(this.nextToWrite);
      this.buffer.delete(this.nextToWrite);
      this.nextToWrite++;
      if (!rec) continue; // aborted or never started: not written, so a resume picks it up
      this.appender.write(rec);
      this.sinceCheckpoint++;
      this.onWritten();
    }
    if (this.sinceCheckpoint > 0 && (force || this.sinceCheckpoint >= this.checkpointEvery || Date.now() - this.lastCheckpoint >= this.checkpointMs)) {
      // Written at once (a resume after the process dies finds them), fsync'd at most every checkpointMs: an
      // fsync blocks the event loop for milliseconds, so one per line would cap a shard at a few hundred lines/s.
      if (force || Date.now() - this.lastSync >= this.checkpointMs) {
        this.appender.checkpoint();
        this.lastSync = Date.now();
      } else this.appender.flush();
      this.sinceCheckpoint = 0;
      this.lastCheckpoint = Date.now();
    }
  }
}

/** One backend call per record, counted into the summary; gives up (stops the run) after too many failures in a row. */
class CorrectionCalls {
  gaveUp: string | null = null;
  private consecutiveFailures = 0;

  constructor(
    private readonly opts: RunCorrectionsOptions,
    private readonly summary: RunCorrectionsSummary,
    private readonly stop: AbortController,
    private readonly maxConsecutive: number,
  ) {}

  /** The record to write, or null when the call was cut short by the stop signal. */
  async correct(r: InferenceInputRow): Promise<CorrectionRecord | null> {
    const { backend, condition } = this.opts;
    const prompt = buildPrompt(condition, r.ocr_text, r.retrieval_context);
    const base = {
      sample_id: r.sample_id, dataset: r.dataset, prompt_type: prompt.promptType, prompt_version: prompt.promptVersion,
      model: backend.model, ocr_text: r.ocr_text, gt_text: r.gt_text,
    };
    const t0 = Date.now();
    try {
      const res = await backend.complete(prompt.messages, { maxTokens: this.opts.maxTokens, signal: this.stop.signal });
      this.consecutiveFailures = 0;
      this.countSuccess(prompt.promptType, res.promptTokens, res.completionTokens);
      return {
        ...base,
        ...this.outputFields(res.text, r.ocr_text),
        latency_ms: res.latencyMs,
        prompt_tokens: res.promptTokens,
        completion_tokens: res.completionTokens,
        error: null,
      };
    } catch (err) {
      const info = failureOf(err);
      if (info.reason === 'aborted' && this.stop.signal.aborted) return null;
      if (isOutage(info.reason)) return this.stopForOutage(info);
      this.countFailure(prompt.promptType, info);
      return {
        ...base, corrected_text: '', raw_output: '', latency_ms: Date.now() - t0,
        prompt_tokens: null, completion_tokens: null, error: info,
      };
    }
  }

  /** corrected_text and raw_output; with the guard on, the guarded text plus raw_text and the decision. */
  private outputFields(raw: string, ocr: string): Pick<CorrectionRecord, 'corrected_text' | 'raw_output' | 'raw_text' | 'guard'> {
    const guard = this.opts.guard;
    if (!guard?.enabled) return { corrected_text: cleanOutput(raw, { source: ocr }), raw_output: raw };
    const g = applyGuard(raw, ocr, guard);
    const counts = (this.summary.guardDecisions ??= {});
    counts[g.guard] = (counts[g.guard] ?? 0) + 1;
    return { corrected_text: g.corrected_text, raw_output: raw, raw_text: raw, guard: g.guard };
  }

  /** The endpoint is not serving: stop the run and write nothing for this line (a later run redoes it). */
  private stopForOutage(info: FailureInfo): null {
    this.summary.outage ??= info;
    this.stop.abort();
    return null;
  }

  private countSuccess(promptType: string, promptTokens: number | null | undefined, completionTokens: number | null | undefined): void {
    const s = this.summary;
    s.succeeded++;
    s.promptTokens += promptTokens ?? 0;
    s.completionTokens += completionTokens ?? 0;
    s.promptTypes[promptType] = (s.promptTypes[promptType] ?? 0) + 1;
  }

  private countFailure(promptType: string, info: FailureInfo): void {
    const s = this.summary;
    s.failed++;
    s.failuresByReason[info.reason] = (s.failuresByReason[info.reason] ?? 0) + 1;
    s.promptTypes[promptType] = (s.promptTypes[promptType] ?? 0) + 1;
    this.consecutiveFailures++;
    if (this.maxConsecutive > 0 && this.consecutiveFailures >= this.maxConsecutive && !this.gaveUp) {
      this.gaveUp = `${this.consecutiveFailures} consecutive failures (last: ${info.reason}${info.status ? ` HTTP ${info.status}` : ''}: ${info.message})`;
      this.stop.abort();
    }
  }
}

/** 4. Log the outcome; throw (with the summary) when the run gave up. */
function reportRun(summary: RunCorrectionsSummary, gaveUp: string | null): RunCorrectionsSummary {
  const { label, outputPath } = summary;
  if (summary.outage) {
    const o = summary.outage;
    const msg = `infer ${label}: LLM endpoint not serving (${o.reason}: ${o.message.replace(/\s+/g, ' ')}, after ${o.attempts} attempt(s)); stopped with ${summary.remaining} sample(s) left, ${summary.written} record(s) written to ${outputPath}`;
    log.warn({ ...summary }, msg);
    throw new LlmUnavailableError(msg, summary, o);
  }
  if (gaveUp) {
    log.error({ ...summary }, `infer ${label}: giving up after ${gaveUp}`);
    throw new RunCorrectionsError(`infer ${label}: giving up after ${gaveUp}; ${summary.written} record(s) written to ${outputPath} (rerun with retryFailed to retry failures)`, summary);
  }
  const msg = `infer ${label}: wrote ${summary.written} record(s) (${summary.failed} failed), skipped ${summary.skippedExisting} existing`;
  if (summary.failed > 0) log.warn({ ...summary }, msg);
  else log.info({ ...summary }, msg);
  return summary;
}
