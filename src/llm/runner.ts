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
import { JsonlAppender } from '../io/jsonl';
import { childLogger } from '../util/log';
import { createProgress } from '../util/progress';
import { CorrectionCalls } from './correction-calls';
import { zeroCorrectionCounts } from './correction-counts';
import { openExistingOutput } from './existing-output';
import { OrderedWriter } from './ordered-writer';
import { runPool } from './pool';
import type { InferenceInputRow } from './records';
import { readInput } from './runner-input';
import { LlmUnavailableError, RunCorrectionsError, type RunCorrectionsOptions, type RunCorrectionsSummary } from './runner-types';

export {
  LlmUnavailableError,
  RunCorrectionsError,
  type PromptKind,
  type RunCorrectionsOptions,
  type RunCorrectionsSummary,
} from './runner-types';

const log = childLogger('infer');

export async function runCorrections(opts: RunCorrectionsOptions): Promise<RunCorrectionsSummary> {
  const started = Date.now();
  const { backend, prompt: kind, outputPath } = opts;
  if (kind !== 'rag' && kind !== 'zero_shot') throw new Error(`runCorrections: prompt must be "rag" or "zero_shot", got "${kind}"`);

  const { input, unique, seenInput, duplicateInput, duplicateInputIds } = await readInput(opts);
  const { existing, retriedFailed } = await openExistingOutput(opts, seenInput);
  const skippedExisting = unique.filter((r) => existing.ids.has(r.sample_id)).length;
  const notDone = unique.filter((r) => !existing.ids.has(r.sample_id));
  const pending = opts.limit !== undefined ? notDone.slice(0, Math.max(0, opts.limit)) : notDone;

  const summary: RunCorrectionsSummary = {
    outputPath,
    prompt: kind,
    label: opts.label ?? kind,
    backend: backend.id,
    model: backend.model,
    inputRecords: input.length,
    duplicateInput,
    duplicateInputIds,
    skippedExisting,
    retriedFailed,
    ...zeroCorrectionCounts(),
    remaining: notDone.length,
    aborted: false,
    outage: null,
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
  const progress = createProgress({ label: `infer ${opts.label ?? opts.prompt}`, total, start: skippedExisting, mode: opts.progress });
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
    throw new RunCorrectionsError(
      `infer ${label}: giving up after ${gaveUp}; ${summary.written} record(s) written to ${outputPath} (rerun with retryFailed to retry failures)`,
      summary,
    );
  }
  const msg = `infer ${label}: wrote ${summary.written} record(s) (${summary.failed} failed), skipped ${summary.skippedExisting} existing`;
  if (summary.failed > 0) log.warn({ ...summary }, msg);
  else log.info({ ...summary }, msg);
  return summary;
}
