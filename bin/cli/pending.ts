/**
 * What a stage is retrying, for the progress line and `phase5 status`: ` · retrying (attempt 7): worker
 * 26896@vm: environment variable HO_KEY is not set — set it in the worker's environment`, from the pending
 * activities of the workflow and, for a sharded infer, of each arm's child workflow.
 */
import type { StatusView } from '../../src/temporal/client';
import { retryingActivity, worstRetrying, type RetryingActivity } from '../../src/temporal/retrying';

/** The most-retried pending activity of the stage (its own or any arm's); null when nothing is retrying. */
export function retryingOf(v: StatusView): RetryingActivity | null {
  return worstRetrying([retryingActivity(v.activities), ...(v.arms ?? []).map((a) => a.retrying ?? null)]);
}

/** ` · retrying (attempt N): <last failure>`, or '' when nothing is retrying. */
export function retryNote(r: RetryingActivity | null | undefined): string {
  return r ? ` · retrying (attempt ${r.attempt}): ${r.failure}` : '';
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
