/**
 * What a stage is retrying, for the progress line and `phase5 status`: ` · retrying (attempt 7): worker
 * 26896@vm: environment variable HO_KEY is not set — set it in the worker's environment`, from the pending
 * activities of the workflow and, for a sharded infer, of each arm's child workflow.
 */
import type { StatusView } from '../../src/temporal/client';
import { retryingActivity, type RetryingActivity } from '../../src/temporal/retrying';

/** The most-retried pending activity of the stage (its own or any arm's); null when nothing is retrying. */
export function retryingOf(v: StatusView): RetryingActivity | null {
  const candidates = [retryingActivity(v.activities), ...(v.arms ?? []).map((a) => a.retrying ?? null)];
  return candidates.reduce<RetryingActivity | null>((worst, r) => (r && (!worst || r.attempt > worst.attempt) ? r : worst), null);
}

/** ` · retrying (attempt N): <last failure>`, or '' when nothing is retrying. */
export function retryNote(r: RetryingActivity | null | undefined): string {
  return r ? ` · retrying (attempt ${r.attempt}): ${r.failure}` : '';
}
