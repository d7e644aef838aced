/**
 * What a stage is retrying, for the progress line and `phase5 status`: ` · retrying (attempt 7): worker
 * 26896@vm: environment variable HO_KEY is not set — set it in the worker's environment`, from the pending
 * activities of the workflow and, for a sharded infer, of each arm's child workflow.
 */
import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { StatusView } from '../../src/temporal/client';
import { retryingActivity, worstRetrying, type RetryingActivity } from '../../src/temporal/retrying';
import { formatWorkflowFailure } from './errors';

/** The most-retried pending activity of the stage (its own or any arm's); null when nothing is retrying. */
export function retryingOf(v: StatusView): RetryingActivity | null {
  return worstRetrying([retryingActivity(v.activities), ...(v.arms ?? []).map((a) => a.retrying ?? null)]);
}

/** ` · retrying (attempt N): <last failure>`, or '' when nothing is retrying. */
export function retryNote(r: RetryingActivity | null | undefined): string {
  return r ? ` · retrying (attempt ${r.attempt}): ${r.failure}` : '';
}

/**
 * A failure the stage already has: its own (closed, or recorded while it still cleans up) or an arm's that failed
 * for good while the others go on — `arm rag: worker 26896@vm: environment variable HO_KEY is not set — …`.
 */
export function failureOf(v: StatusView): string | null {
  if (v.failure) return v.failure;
  const arm = (v.arms ?? []).find((a) => a.failure);
  return arm ? `arm ${arm.arm}: ${arm.failure}` : null;
}

/** ` · failed: <reason>`, or '' when nothing failed. */
export function failureNote(failure: string | null | undefined): string {
  return failure ? ` · failed: ${failure}` : '';
}

/** The closed states a workflow has a failure in. */
export const CLOSED_FAILED: ReadonlySet<string> = new Set(['FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELLED']);

/**
 * A closed workflow's failure in one line (`infer (arm rag) failed: …`, as the stage command prints it), null when
 * it did not fail; `fallback` names the stage of a workflow that is not a study's child. Call it on a closed
 * workflow only (it reads the result); a call that fails throws.
 */
export async function closedFailure(client: Client, workflowId: string, fallback = 'workflow'): Promise<string | null> {
  try {
    await client.workflow.getHandle(workflowId).result();
    return null;
  } catch (err) {
    // Only the workflow's own failure; a call that failed (deadline, server gone) is not one.
    if (!(err instanceof WorkflowFailedError)) throw err;
    return formatWorkflowFailure(err, false, fallback)[0].replace(/^phase5: /, '');
  }
}

/**
 * One line when the server stops answering while a stage is watched (a restart, a network cut) and one when it
 * answers again, so a progress line that stops is explained; the workflow goes on by itself on the server.
 */
export class ServerNotes {
  private lostAt = 0;
  constructor(
    private readonly print: (line: string) => void,
    private readonly now = () => Date.now(),
  ) {}

  seen(answered: boolean): void {
    if (!answered && !this.lostAt) {
      this.lostAt = this.now();
      this.print('Temporal does not answer — waiting for it (the run goes on when it is back)');
    } else if (answered && this.lostAt) {
      this.print(`Temporal answers again after ${Math.round((this.now() - this.lostAt) / 1000)} s`);
      this.lostAt = 0;
    }
  }
}
