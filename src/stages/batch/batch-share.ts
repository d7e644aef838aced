/**
 * `infer.max_failed_share` after `--batch-in`, as the online infer stage applies it (src/stages/infer/failures.ts):
 * per run, the failed records of its corrections plus the lines the batch set asked for that have no record —
 * error lines and lines missing from the outputs — against all of them. A run over the share is an
 * `InferFailedError` in the online message's form; what was imported stays written.
 */
import { existsSync } from 'node:fs';
import type { ArmRun } from '../study/arms';
import { countFailedRecords, failedShareMessage, InferFailedError, type FailedCounts } from '../infer/failures';
import type { InferOptions } from '../infer/types';
import type { IssuedRequest } from './batch-index';
import { doneIds } from './done-ids';

export const BATCH_REMEDY =
  'fix the cause, then `phase5 infer --batch-out DIR` asks for the lines without a record again (lines already corrected are left out; `--retry-failed` asks for the failed ones too)';

/** The lines a batch set asked for that came back with no answer to record, by run, each with its reason. */
export class UnansweredLines {
  private readonly byRun = new Map<string, Map<string, { dataset: string; reason: string }>>();

  add(request: IssuedRequest, reason: string): void {
    const run = this.byRun.get(request.run) ?? new Map<string, { dataset: string; reason: string }>();
    this.byRun.set(request.run, run);
    if (!run.has(request.sampleId)) run.set(request.sampleId, { dataset: request.dataset, reason });
  }

  of(run: string): Map<string, { dataset: string; reason: string }> {
    return this.byRun.get(run) ?? new Map();
  }
}

/** One run's counts: its corrections' records, and its unanswered lines that have no record, as failed lines. */
async function runCounts(options: InferOptions, run: ArmRun, key: string, unanswered: UnansweredLines): Promise<FailedCounts> {
  const c: FailedCounts = existsSync(run.output)
    ? await countFailedRecords(run.output, options.datasets)
    : { records: 0, failed: 0, byReason: {}, first: null };
  const done = await doneIds(run.output, false);
  const wanted = options.datasets ? new Set(options.datasets) : null;
  for (const [sampleId, { dataset, reason }] of unanswered.of(key)) {
    if (done.has(sampleId) || (wanted && !wanted.has(dataset))) continue;
    c.records++;
    c.failed++;
    c.byReason[reason] = (c.byReason[reason] ?? 0) + 1;
    c.first ??= `${sampleId}: ${reason}`;
  }
  return c;
}

/** Every run the batch set asked for, checked against the share: one InferFailedError naming each run over it. */
export async function batchFailedShare(
  options: InferOptions,
  runs: Map<string, ArmRun>,
  issued: Map<string, IssuedRequest>,
  unanswered: UnansweredLines,
): Promise<InferFailedError | null> {
  const asked = new Set([...issued.values()].map((r) => r.run));
  const messages: string[] = [];
  for (const [key, run] of runs) {
    if (!asked.has(key)) continue;
    const message = failedShareMessage(options, key, await runCounts(options, run, key, unanswered), BATCH_REMEDY);
    if (message) messages.push(message);
  }
  return messages.length ? new InferFailedError(messages.join('\n')) : null;
}
