/**
 * What an activity error means for retrying, and the decision for errors that only this worker has.
 *
 * - input: bad input, config or data (activities/as-activity.ts `isDeterministicError`) — every worker fails the
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
 * consecutive such failures for each of those workers (the bound holds when the pollers cannot be listed). Only
 * live workers count: those that started a poll within LIVE_POLLER_WINDOW_MS (70 s).
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
   * Every worker listed as polling the queue at these failures, with the time of its latest poll (epoch ms). The
   * server's list is a snapshot (after a server restart it holds only the workers that polled since), so a worker
   * seen before still counts — while its latest poll is within LIVE_POLLER_WINDOW_MS: a stopped worker drops out.
   */
  pollers?: Record<string, number>;
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
 * A worker counts as polling only if it started a poll within this window. The server lists a stopped worker
 * for minutes after its last poll (its poller history), so without the window a configuration failure waited for
 * workers that had gone. A live idle worker starts a new long poll about every 55 s (the server ends a poll
 * without a task after about a minute: measured, docs/activity-retries.md), so a shorter window would take it for
 * gone and fail a run that it could serve.
 */
export const LIVE_POLLER_WINDOW_MS = 70_000;

interface PollerInfo {
  identity?: string | null;
  lastAccessTime?: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null;
}

/** Identity → time of its latest poll (epoch ms; a poller without a time: `now`). */
export function pollTimes(pollers: PollerInfo[], now: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of pollers) {
    if (!p.identity) continue;
    const t = p.lastAccessTime;
    const secs = !t?.seconds ? null : typeof t.seconds === 'number' ? t.seconds : t.seconds.toNumber();
    const at = secs === null ? now : secs * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
    out[p.identity] = Math.max(out[p.identity] ?? 0, at);
  }
  return out;
}

/** The identities whose latest poll is within `windowMs` of `now`. */
export function livePollers(times: Record<string, number>, now: number, windowMs = LIVE_POLLER_WINDOW_MS): string[] {
  return Object.keys(times)
    .filter((id) => now - times[id] <= windowMs)
    .sort();
}

/**
 * The workers serving this activity's task queue with their latest poll; null when they cannot be listed.
 * Activity and workflow pollers both: a worker whose activity slots are paused (its endpoint is down,
 * docs/activity-retries.md) still polls the queue's workflow tasks, and must not be taken for absent.
 */
async function queuePollers(ctx: Context): Promise<Record<string, number> | null> {
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
    const times = pollTimes(
      (res ?? []).flatMap((r) => r.pollers ?? []),
      Date.now(),
    );
    return Object.keys(times).length ? times : null;
  } catch {
    return null;
  }
}

/** The decision for one worker-local failure, given what earlier attempts recorded and who polls the queue. */
export function decideWorkerLocal(
  previous: WorkerLocalRecord | undefined,
  problem: string,
  me: string,
  pollers: Record<string, number> | null,
  maxAttempts: number,
  now = Date.now(),
): { record: WorkerLocalRecord; final: 'all-workers' | 'bound' | null } {
  const same = previous && previous.problem === problem ? previous : undefined;
  const workers = [...new Set([...(same?.workers ?? []), me])].sort();
  const times = { ...(same?.pollers ?? {}) };
  for (const [id, at] of Object.entries(pollers ?? {})) times[id] = Math.max(times[id] ?? 0, at);
  const live = livePollers(times, now);
  const record = { problem, failures: (same?.failures ?? 0) + 1, workers, pollers: Object.fromEntries(live.map((id) => [id, times[id]])) };
  if (live.length > 0 && live.every((p) => workers.includes(p))) return { record, final: 'all-workers' };
  if (record.failures >= Math.max(1, maxAttempts) * Math.max(1, live.length)) return { record, final: 'bound' };
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
  const pollers = ctx ? await queuePollers(ctx) : { [me]: Date.now() };
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
