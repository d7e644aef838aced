/**
 * What an activity error means for retrying, and the decision for errors that only this worker has.
 *
 * - input: bad input, config or data (activities/context.ts `isDeterministicError`) — every worker fails the
 *   same way, so it is non-retryable at once;
 * - worker-local: something this worker lacks (`WorkerSetupError`: an API key variable, a model file) — another
 *   worker polling the same task queue may have it, so the attempt is retried, there;
 * - other: outages and crashes keep the stage's retry policy (an infer outage is bounded by infer.outage_budget).
 *
 * A worker-local failure is counted in the heartbeat details it leaves behind (`workerLocal`: consecutive
 * failures and the workers that failed; an attempt that heartbeats progress replaces the details, so the count
 * restarts), which the next attempt reads from `Context.info.heartbeatDetails` (docs/activity-retries.md) — the activity decides, not the
 * workflow, so no workflow command changes. The run fails, non-retryably and with the one-line reason, once
 * every worker seen polling the task queue has failed this way, or after `temporal.max_worker_local_attempts`
 * consecutive such failures for each of those workers (the bound holds when the pollers cannot be listed).
 */
import { hostname } from 'node:os';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkerSetupError } from '../src/util/worker-setup-error';

export const WORKER_LOCAL_FAILURE = 'WorkerLocalError';
export const DEFAULT_MAX_WORKER_LOCAL_ATTEMPTS = 3;

/** The record a worker-local failure leaves in the heartbeat details for the next attempt. */
export interface WorkerLocalRecord {
  problem: string;
  failures: number;
  workers: string[];
  /**
   * Every worker listed as polling the queue at any of these failures. The server's list is a snapshot (after a
   * server restart it holds only the workers that polled since), so a worker seen once still counts: the run fails
   * for all workers only when each of them has failed.
   */
  pollers?: string[];
}

/** This worker as Temporal names it by default (`pid@host`), the identity DescribeTaskQueue lists. */
export function workerIdentity(): string {
  return `${process.pid}@${hostname()}`;
}

export function isWorkerLocalError(err: unknown): err is WorkerSetupError {
  return err instanceof WorkerSetupError;
}

function currentContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

/**
 * The identities of the workers serving this activity's task queue; null when they cannot be listed. Activity and
 * workflow pollers both: a worker whose activity slots are paused (its endpoint is down, docs/activity-retries.md)
 * still polls the queue's workflow tasks, and must not be taken for absent.
 */
async function queuePollers(ctx: Context): Promise<string[] | null> {
  const describe = (taskQueueType: 1 | 2) =>
    ctx.client.workflowService.describeTaskQueue({
      namespace: ctx.info.activityNamespace,
      taskQueue: { name: ctx.info.taskQueue },
      taskQueueType,
    });
  try {
    const res = await Promise.race([
      Promise.all([describe(2), describe(1)]), // TASK_QUEUE_TYPE_ACTIVITY, TASK_QUEUE_TYPE_WORKFLOW
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 3000).unref()),
    ]);
    const ids = (res ?? [])
      .flatMap((r) => r.pollers ?? [])
      .map((p) => p.identity ?? '')
      .filter(Boolean);
    return ids.length ? [...new Set(ids)] : null;
  } catch {
    return null;
  }
}

/** The decision for one worker-local failure, given what earlier attempts recorded and who polls the queue. */
export function decideWorkerLocal(
  previous: WorkerLocalRecord | undefined,
  problem: string,
  me: string,
  pollers: string[] | null,
  maxAttempts: number,
): { record: WorkerLocalRecord; final: 'all-workers' | 'bound' | null } {
  const same = previous && previous.problem === problem ? previous : undefined;
  const workers = [...new Set([...(same?.workers ?? []), me])].sort();
  const seen = [...new Set([...(same?.pollers ?? []), ...(pollers ?? [])])].sort();
  const record = { problem, failures: (same?.failures ?? 0) + 1, workers, pollers: seen };
  if (seen.length > 0 && seen.every((p) => workers.includes(p))) return { record, final: 'all-workers' };
  if (record.failures >= Math.max(1, maxAttempts) * Math.max(1, seen.length)) return { record, final: 'bound' };
  return { record, final: null };
}

/**
 * The failure to throw for `err`, a worker-local error: retryable (on another worker) while a worker polling the
 * queue has not failed this way yet, else non-retryable. Outside Temporal this process is the only worker.
 */
export async function workerLocalFailure(
  err: WorkerSetupError,
  maxAttempts = DEFAULT_MAX_WORKER_LOCAL_ATTEMPTS,
): Promise<ApplicationFailure> {
  const me = workerIdentity();
  const ctx = currentContext();
  const prevDetails = (ctx?.info.heartbeatDetails ?? {}) as Record<string, unknown> & { workerLocal?: WorkerLocalRecord };
  const pollers = ctx ? await queuePollers(ctx) : [me];
  const { record, final } = decideWorkerLocal(prevDetails.workerLocal, err.problem, me, pollers, maxAttempts);
  // Kept with the previous attempt's progress and checkpoint (an outage's start, a resume position).
  ctx?.heartbeat({ ...prevDetails, workerLocal: record });
  const message = `worker ${me}: ${err.message}`;
  if (final === null) return ApplicationFailure.create({ type: WORKER_LOCAL_FAILURE, message, nonRetryable: false });
  const why =
    final === 'all-workers'
      ? `every worker polling ${ctx?.info.taskQueue ?? 'the queue'} failed this way: ${record.workers.join(', ')}`
      : `${record.failures} attempts in a row failed this way, on ${record.workers.join(', ')}`;
  return ApplicationFailure.create({ type: WORKER_LOCAL_FAILURE, message: `${message} (${why})`, nonRetryable: true });
}
