/**
 * Client helpers for the CLI: connect with a one-line error when Temporal is down, start a workflow or
 * attach to the one already running under the same id, and read progress (workflow query + the last
 * heartbeat of the running activity) for `phase5 status`.
 */
import {
  Client,
  type Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { defaultPayloadConverter, type SearchAttributePair, type Workflow } from '@temporalio/common';
import type { Config } from '../config/schema';
import type { HeartbeatProgress, Progress } from './types';
import { UserFacingError } from './server';
import { openConnection, temporalConnectOptions } from './connect';
import { oneLine, retryingActivity, type RetryingActivity } from './retrying';
import { armLoad } from './arm-load';
import { isUnknownSearchAttribute } from './search-attributes';
import { logger } from '../util/log';
import type { LlmLoad } from '../stages/infer/llm-load';

/** A client of the config's namespace over Temporal's own client configuration (docs/cluster.md). */
export async function connectClient(config: Config): Promise<{ client: Client; connection: Connection }> {
  const connection = await openConnection(temporalConnectOptions(config));
  return { client: new Client({ connection, namespace: config.temporal.namespace }), connection };
}

export type AttachOutcome = 'started' | 'attached-running' | 'finished-before';

export interface StartOrAttachOptions {
  /** Start a new execution even when one already finished successfully under this id. */
  force?: boolean;
  taskQueue: string;
  /** Values that must never reach history (secrets) — checked before starting. */
  forbiddenValues?: string[];
  /** Search attributes and memo of a new execution (src/temporal/search-attributes); an attached one keeps its own. */
  typedSearchAttributes?: SearchAttributePair[];
  memo?: Record<string, unknown>;
}

/**
 * Start `workflowType` under `workflowId`, or attach: a running execution is attached to; a completed one is
 * reported (its result returned) unless `force`; a failed, cancelled or terminated one is started again — its
 * activities resume from their checkpoints on disk.
 */
export async function startOrAttach<W extends Workflow>(
  client: Client,
  workflow: W,
  workflowId: string,
  args: Parameters<W>,
  opts: StartOrAttachOptions,
): Promise<{ handle: WorkflowHandle<W>; outcome: AttachOutcome }> {
  const serialized = JSON.stringify(args);
  for (const secret of opts.forbiddenValues ?? []) {
    if (secret && serialized.includes(secret))
      throw new UserFacingError('refusing to start: a secret value would be written into the workflow input');
  }
  try {
    const desc = await client.workflow.getHandle(workflowId).describe();
    if (desc.status.name === 'RUNNING')
      return { handle: client.workflow.getHandle<W>(workflowId, desc.runId), outcome: 'attached-running' };
    if (desc.status.name === 'COMPLETED' && !opts.force)
      return { handle: client.workflow.getHandle<W>(workflowId, desc.runId), outcome: 'finished-before' };
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  const start = (labels: Pick<StartOrAttachOptions, 'typedSearchAttributes' | 'memo'>) =>
    client.workflow.start(workflow, {
      workflowId,
      taskQueue: opts.taskQueue,
      args,
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      ...labels,
    } as unknown as WorkflowStartOptions<W>);
  const labels = {
    ...(opts.typedSearchAttributes ? { typedSearchAttributes: opts.typedSearchAttributes } : {}),
    ...(opts.memo ? { memo: opts.memo } : {}),
  };
  try {
    return { handle: await start(labels).catch((err: unknown) => startWithoutAttributes(err, labels, start)), outcome: 'started' };
  } catch (err) {
    // Lost a race with another CLI starting the same id: attach to theirs.
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      return { handle: client.workflow.getHandle<W>(workflowId), outcome: 'attached-running' };
    throw err;
  }
}

/** A namespace without the Phase5 search attributes (registration refused): start with the memo only, and say so. */
async function startWithoutAttributes<T>(
  err: unknown,
  labels: Pick<StartOrAttachOptions, 'typedSearchAttributes' | 'memo'>,
  start: (labels: Pick<StartOrAttachOptions, 'typedSearchAttributes' | 'memo'>) => Promise<T>,
): Promise<T> {
  if (!labels.typedSearchAttributes || !isUnknownSearchAttribute(err)) throw err;
  logger.warn(
    { reason: String((err as { cause?: Error }).cause?.message ?? (err as Error).message) },
    'this namespace lacks the Phase5 search attributes — the run starts without them (`phase5 runs` will not list it); docs/cluster.md',
  );
  return start({ memo: labels.memo });
}

export interface PendingActivityView {
  type: string;
  attempt: number;
  /** The worker running (or that last ran) it: `pid@host` unless the worker set another identity. */
  worker?: string;
  heartbeat: HeartbeatProgress | null;
  lastFailure?: string;
}

export interface StatusView {
  workflowId: string;
  status: string;
  progress: Progress | null;
  /** The first pending activity (the one a sequential stage is running). */
  activity: PendingActivityView | null;
  /** Every pending activity (an export runs many shards at once). */
  activities: PendingActivityView[];
  /** Work done across the stage: finished work the workflow reports plus every running activity's heartbeat. */
  work: { done: number; total: number; unit: string } | null;
  /** Items per second over the current attempts, when known. */
  rate: number | null;
  etaSeconds: number | null;
  /** Sharded infer: every arm's lines, rate, ETA and the workers running its shards. */
  arms?: ArmStatus[];
  /**
   * Why the workflow failed, on one line: while it still runs, the failure its progress query records
   * (workflows/progress.ts `recordFailure`: an arm merging what it kept); once closed, the CLI adds its root cause.
   */
  failure?: string;
}

export interface ArmStatus {
  arm: string;
  workflowId: string;
  status: string;
  done: number;
  total: number;
  /** Lines per second (this run of the arm's workflow: finished shards; else the running shards' heartbeats). */
  rate: number | null;
  etaSeconds: number | null;
  workers: string[];
  /** A shard of this arm that failed and is being retried (its attempt and last failure). */
  retrying?: RetryingActivity | null;
  /** The arm failed for good (its child workflow records it before merging the lines it kept). */
  failure?: string;
  /** The LLM endpoint's load from the running shards' heartbeats (summed over workers). */
  load?: LlmLoad;
}

type RawPending = NonNullable<Awaited<ReturnType<WorkflowHandle['describe']>>['raw']['pendingActivities']>[number];

/** Heartbeat details that carry a position (a failure record alone — activities/failure-kind.ts — does not). */
function progressDetails(details: unknown): HeartbeatProgress | null {
  const d = details as Partial<HeartbeatProgress> | null;
  return d && typeof d.done === 'number' && typeof d.total === 'number' ? (d as HeartbeatProgress) : null;
}

function pendingView(pending: RawPending): PendingActivityView {
  const payload = pending.heartbeatDetails?.payloads?.[0];
  return {
    type: pending.activityType?.name ?? '?',
    attempt: pending.attempt ?? 1,
    worker: pending.lastWorkerIdentity || undefined,
    heartbeat: payload ? progressDetails(defaultPayloadConverter.fromPayload(payload)) : null,
    lastFailure: pending.lastFailure?.message ?? undefined,
  };
}

/** Items per second of one attempt (null before it made progress). */
function attemptRate(hb: HeartbeatProgress | null, now: number): number | null {
  if (!hb?.attemptStartedAt) return null;
  const secs = (now - Date.parse(hb.attemptStartedAt)) / 1000;
  return secs > 0 && hb.done > hb.doneAtAttemptStart ? (hb.done - hb.doneAtAttemptStart) / secs : null;
}

/**
 * Sum the running activities' heartbeats: with `finished` (the work of activities that completed, which the
 * workflow's progress reports, e.g. an export's lines of finished shards) the stage's position; else the
 * position of the single running activity.
 */
export function combineProgress(
  activities: PendingActivityView[],
  finished: { done: number; total: number } | null,
  now = Date.now(),
): Pick<StatusView, 'work' | 'rate' | 'etaSeconds'> {
  const beats = activities.map((a) => a.heartbeat).filter((h): h is HeartbeatProgress => h !== null);
  const rates = beats.map((h) => attemptRate(h, now)).filter((r): r is number => r !== null);
  const rate = rates.length ? rates.reduce((a, b) => a + b, 0) : null;
  let work: StatusView['work'] = null;
  if (finished) work = { done: finished.done + beats.reduce((a, h) => a + h.done, 0), total: finished.total, unit: 'lines' };
  else if (beats.length === 1) work = { done: beats[0].done, total: beats[0].total, unit: beats[0].unit };
  else if (beats.length > 1)
    work = { done: beats.reduce((a, h) => a + h.done, 0), total: beats.reduce((a, h) => a + h.total, 0), unit: beats[0].unit };
  const etaSeconds = work && rate ? Math.max(0, work.total - work.done) / rate : null;
  return { work, rate, etaSeconds };
}

type ArmsProgress = Record<string, { workflowId: string; lines: number; shards: number }>;

/** One arm's child workflow (its latest run): finished shards' lines plus the running shards' heartbeats. */
async function armStatus(client: Client, arm: string, a: ArmsProgress[string], now = Date.now()): Promise<ArmStatus> {
  const view = await workflowStatus(client, a.workflowId).catch(() => null);
  if (!view)
    return { arm, workflowId: a.workflowId, status: 'NOT_STARTED', done: 0, total: a.lines, rate: null, etaSeconds: null, workers: [] };
  const results = (view.progress?.results ?? {}) as { lines?: { done: number }; linesAtRunStart?: number };
  const done = Math.min(a.lines, view.work?.done ?? results.lines?.done ?? 0);
  const secs = view.progress ? (now - Date.parse(view.progress.startedAt)) / 1000 : 0;
  const runLines = (results.lines?.done ?? 0) - (results.linesAtRunStart ?? 0);
  const rate = secs > 0 && runLines > 0 ? runLines / secs : view.rate;
  const finished = view.status === 'COMPLETED' ? a.lines : done;
  const workers = [
    ...new Set(
      view.activities
        .filter((x) => x.heartbeat)
        .map((x) => x.worker)
        .filter((w): w is string => !!w),
    ),
  ].sort();
  const retrying = retryingActivity(view.activities);
  const load = view.status === 'RUNNING' ? armLoad(view.activities) : undefined;
  return {
    arm,
    workflowId: a.workflowId,
    status: view.status,
    done: finished,
    total: a.lines,
    rate,
    etaSeconds: rate ? Math.max(0, a.lines - finished) / rate : null,
    workers,
    retrying,
    ...(view.failure ? { failure: view.failure } : {}),
    ...(load ? { load } : {}),
  };
}

/** The stage's position summed over its arms. */
function sumArms(arms: ArmStatus[]): Pick<StatusView, 'work' | 'rate' | 'etaSeconds'> {
  const done = arms.reduce((n, a) => n + a.done, 0);
  const total = arms.reduce((n, a) => n + a.total, 0);
  const rates = arms.map((a) => a.rate).filter((r): r is number => r !== null);
  const rate = rates.length ? rates.reduce((x, y) => x + y, 0) : null;
  return { work: { done, total, unit: 'lines' }, rate, etaSeconds: rate ? Math.max(0, total - done) / rate : null };
}

export async function workflowStatus(client: Client, workflowId: string): Promise<StatusView> {
  const handle = client.workflow.getHandle(workflowId);
  let desc;
  try {
    desc = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new UserFacingError(`no workflow with id ${workflowId}`);
    throw err;
  }
  let progress: Progress | null = null;
  try {
    progress = await handle.query<Progress>('progress');
  } catch {
    progress = null; // no worker to answer the query, or a workflow without one
  }
  const activities = (desc.raw.pendingActivities ?? []).map(pendingView);
  const lines = (progress?.results as { lines?: { done: number; total: number } } | undefined)?.lines ?? null;
  const view: StatusView = {
    workflowId,
    status: desc.status.name,
    progress,
    activity: activities[0] ?? null,
    activities,
    ...combineProgress(activities, lines),
  };
  const failure = (progress?.results as { failure?: unknown } | undefined)?.failure;
  if (typeof failure === 'string' && failure) view.failure = oneLine(failure);
  const arms = (progress?.results as { arms?: ArmsProgress } | undefined)?.arms;
  if (arms) {
    view.arms = await Promise.all(Object.entries(arms).map(([arm, a]) => armStatus(client, arm, a)));
    Object.assign(view, sumArms(view.arms));
  }
  return view;
}
