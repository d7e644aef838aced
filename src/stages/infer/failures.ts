/**
 * How the infer stage fails: for good (`InferFailedError`: more failed lines than `infer.max_failed_share`, every
 * line failing for a reason of its own, or an LLM outage longer than `infer.outage_budget`) or retryably (an
 * outage still within its budget, measured across attempts through the checkpoint). Per-line failures are
 * records of the output, counted here.
 */
import { createReadStream } from 'node:fs';
import readline from 'node:readline';
import type { LlmBackend, LlmUnavailableError } from '../../llm/index';
import type { InferOptions } from './types';
import { UserInputError, type StageHooks } from '../shared/types';

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
export function outageFailure(
  err: LlmUnavailableError,
  outageBudgetMs: number,
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
  if (lasted >= outageBudgetMs) {
    return outage(
      new InferFailedError(
        `infer ${err.summary.label}: the LLM at ${backend.id} has not served for ${formatMs(lasted)} (infer.outage_budget ${formatMs(outageBudgetMs)}; last: ${what}); ` +
          `${err.summary.remaining} line(s) left — bring the endpoint up and rerun \`phase5 infer\``,
      ),
    );
  }
  const retryable = new Error(
    `${err.message} — retrying (outage for ${formatMs(lasted)} of infer.outage_budget ${formatMs(outageBudgetMs)})`,
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

/** An output's records, its failed ones by reason, and the first failure (`sample_id: reason — message`). */
export interface FailedCounts {
  records: number;
  failed: number;
  byReason: Record<string, number>;
  first: string | null;
}

/** Failed records of the selected datasets in an arm's output, by reason, with the first one's detail. */
export async function countFailedRecords(file: string, datasets?: readonly string[]): Promise<FailedCounts> {
  const wanted = datasets ? new Set(datasets) : null;
  const res: FailedCounts = { records: 0, failed: 0, byReason: {}, first: null };
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
  assertFailedShareOf(options, name, await countFailedRecords(output, options.datasets));
}

/** The online remedy: the failed lines are corrected again by `--retry-failed`. */
export const RETRY_FAILED_REMEDY = 'fix the cause, then `phase5 infer --retry-failed`';

/** assertFailedShare on counts already taken (a merge counts its output once for its result and this check). */
export function assertFailedShareOf(options: InferOptions, name: string, c: FailedCounts): void {
  const message = failedShareMessage(options, name, c, RETRY_FAILED_REMEDY);
  if (message) throw new InferFailedError(message);
}

/** The InferFailedError message for counts over `max_failed_share` (null when within it), ending with `remedy`. */
export function failedShareMessage(options: InferOptions, name: string, c: FailedCounts, remedy: string): string | null {
  if (c.records === 0 || c.failed / c.records <= options.maxFailedShare) return null;
  const pct = (x: number) => `${Number((x * 100).toFixed(1))}%`;
  const reasons = Object.entries(c.byReason)
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${n} ${r}`)
    .join(', ');
  return (
    `infer ${name}: ${c.failed} of ${c.records} lines failed (${pct(c.failed / c.records)}, over infer.max_failed_share ${pct(options.maxFailedShare)}): ` +
    `${reasons} — first: ${c.first}; ${remedy}`
  );
}
