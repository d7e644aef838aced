/**
 * What turns a plain stage into an activity: stage hooks fed by the activity context (throttled heartbeats
 * that carry progress + checkpoint, resume details from the previous attempt, cancellation), one writer per
 * output file, and the mapping of user errors to non-retryable failures.
 * Works outside Temporal too (tests and benchmarks call activities directly): then heartbeats are no-ops.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ConfigError } from '../src/config/load';
import { UserInputError, type RunOptions, type StageHooks, type StageInput } from '../src/stages/shared/types';
import type { Config } from '../src/config/schema';
import { DatasetError, DatasetLineError } from '../src/datasets';
import { JsonlParseError } from '../src/io/jsonl';
import { CorpusBuildError } from '../src/openiti/build-options';
import { IndexCorruptError, IndexMismatchError, IndexMissingError, PartialVectorsError } from '../src/index/errors';
import { ModelDirError } from '../src/embed/model-dir';
import type { HeartbeatProgress } from '../src/temporal/types';
import { checkRunMarker } from '../src/stages/shared/run-marker';
import { isWorkerLocalError, workerLocalFailure } from './failure-kind';
import type { LlmLoad } from '../src/stages/infer/llm-load';

export { UserInputError };

function currentContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

/** Heartbeat details the previous attempt of this activity left (undefined on a first attempt). */
export function previousCheckpoint<T extends Record<string, unknown>>(): (HeartbeatProgress & { checkpoint?: T }) | undefined {
  const ctx = currentContext();
  return ctx?.info.heartbeatDetails as (HeartbeatProgress & { checkpoint?: T }) | undefined;
}

export function attemptNumber(): number {
  return currentContext()?.info.attempt ?? 1;
}

/** The activity's cancellation signal (undefined outside Temporal). */
export function currentSignal(): AbortSignal | undefined {
  return currentContext()?.cancellationSignal;
}

/** Throws the cancellation reason when the workflow cancelled this activity (needs recent heartbeats). */
export function throwIfCancelled(): void {
  const ctx = currentContext();
  if (ctx?.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
}

export interface Heartbeater {
  /** Report progress; heartbeats at most every `everyMs` unless `force`. */
  beat(done: number, checkpoint?: Record<string, unknown>, force?: boolean): void;
  /** The LLM endpoint's load, sent with this and later beats. */
  setLoad(load: LlmLoad): void;
  setTotal(total: number): void;
  /** Stop the keep-alive timer (call in `finally`). */
  stop(): void;
  readonly step: string;
}

/**
 * Progress heartbeats for one step. Besides explicit beats, a keep-alive timer re-sends the last details at a
 * third of the heartbeat timeout, so slow phases without progress (loading a model, building an HNSW graph)
 * never look like a dead worker — a timed-out heartbeat would start a second attempt on the same files.
 */
export function heartbeater(step: string, total: number, startDone = 0, unit = 'records', everyMs = 1000): Heartbeater {
  const ctx = currentContext();
  const attemptStartedAt = new Date().toISOString();
  let last = 0;
  let tot = total;
  let details: HeartbeatProgress = { step, done: startDone, total, unit, attemptStartedAt, doneAtAttemptStart: startDone };
  const timeoutMs = ctx?.info.heartbeatTimeoutMs ?? 0;
  const keepAlive = ctx && timeoutMs > 0 ? setInterval(() => ctx.heartbeat(details), Math.max(500, Math.floor(timeoutMs / 3))) : null;
  keepAlive?.unref();
  if (ctx) ctx.heartbeat(details);
  // A beat inside the throttle window is sent when the window ends, so the last position is never held back
  // until the next beat (a slow batch) or the keep-alive (a third of the heartbeat timeout).
  let trailing: NodeJS.Timeout | null = null;
  const send = () => {
    if (trailing) clearTimeout(trailing);
    trailing = null;
    last = Date.now();
    ctx?.heartbeat(details);
  };
  return {
    step,
    setTotal(t) {
      tot = t;
    },
    setLoad(load) {
      details = { ...details, load };
    },
    beat(done, checkpoint, force = false) {
      details = {
        step,
        done,
        total: tot,
        unit,
        attemptStartedAt,
        doneAtAttemptStart: startDone,
        checkpoint: checkpoint ?? details.checkpoint,
        ...(details.load ? { load: details.load } : {}),
      };
      if (!ctx) return;
      const wait = everyMs - (Date.now() - last);
      if (!force && wait > 0) {
        trailing ??= setTimeout(send, wait);
        trailing.unref();
        return;
      }
      send();
      throwIfCancelled();
    },
    stop() {
      if (keepAlive) clearInterval(keepAlive);
      if (trailing) clearTimeout(trailing);
    },
  };
}

const activeWriters = new Map<string, { controller: AbortController; done: Promise<unknown> }>();

/**
 * Run `fn` as the only writer of `key` (an output file) in this worker process. When Temporal starts a new
 * attempt while an older one is still running here (e.g. its heartbeats were lost while the server restarted),
 * the older attempt is aborted and awaited before the new one touches the file — two attempts never append to
 * the same file at once. The signal also fires when Temporal cancels the activity.
 */
export async function runExclusive<T>(key: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const prev = activeWriters.get(key);
  if (prev) {
    prev.controller.abort(new Error('superseded by a newer attempt of the same activity'));
    await prev.done.catch(() => undefined);
  }
  const controller = new AbortController();
  const cancel = currentSignal();
  const onCancel = () => controller.abort(cancel?.reason);
  cancel?.addEventListener('abort', onCancel, { once: true });
  const done = fn(controller.signal);
  const entry = { controller, done };
  activeWriters.set(key, entry);
  try {
    return await done;
  } finally {
    cancel?.removeEventListener('abort', onCancel);
    if (activeWriters.get(key) === entry) activeWriters.delete(key);
  }
}

/**
 * Errors that say the input, the config or a file on disk is wrong. Each is deterministic: the same input
 * fails the same way on every attempt, so retrying only delays the message the user needs.
 */
const DETERMINISTIC_ERRORS = [
  UserInputError,
  ConfigError,
  DatasetError,
  DatasetLineError,
  JsonlParseError,
  CorpusBuildError,
  IndexMissingError,
  IndexMismatchError,
  IndexCorruptError,
  PartialVectorsError,
  ModelDirError,
] as const;

export function isDeterministicError(err: unknown): err is Error {
  return DETERMINISTIC_ERRORS.some((type) => err instanceof type);
}

export interface ActivityLimits {
  maxWorkerLocalAttempts?: number;
  /**
   * Called when a worker-local failure is to be retried on another worker (not when it ends the run): the infer
   * queue's pause (bin/cli/worker-runtime.ts), which must not delay the next task when no other worker can take it.
   */
  onRetryElsewhere?(reason: string): void;
}

/**
 * Run an activity body; configuration, input and data errors become non-retryable failures with a clear message;
 * what only this worker lacks is retried on the other workers, then fails (activities/failure-kind.ts).
 */
export async function asActivity<T>(fn: () => Promise<T>, limits: ActivityLimits = {}): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isDeterministicError(err)) {
      throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
    }
    if (isWorkerLocalError(err)) {
      const failure = await workerLocalFailure(err, limits.maxWorkerLocalAttempts);
      if (!failure.nonRetryable) limits.onRetryElsewhere?.(err.message);
      throw failure;
    }
    throw err;
  }
}

/**
 * `work` with stage hooks backed by the activity context (see activityHooks), stopped when `work` ends however
 * it ends: the hooks life cycle of every activity that reports progress.
 */
export async function withActivityHooks<T, C extends object = Record<string, unknown>>(
  step: string,
  unit: string,
  total: number,
  work: (hooks: StageHooks<C>) => Promise<T>,
): Promise<T> {
  const hooks = activityHooks<C>(step, unit, total);
  try {
    return await work(hooks);
  } finally {
    hooks.stop();
  }
}

/**
 * `work` with the activity heartbeating until it ends (no progress of its own): a step that reads or writes
 * whole files — a plan, a merge — is not taken for a stuck worker by the heartbeat timeout.
 */
export async function keptAlive<T>(step: string, work: () => Promise<T>): Promise<T> {
  return withActivityHooks(step, 'steps', 0, () => work());
}

/** A stage's options from an activity's input (config, CLI options, `--force`), through the stage's `optionsFrom`. */
export function optionsOfInput<O>(optionsFrom: (config: Config, cli: RunOptions, force?: boolean) => O): (input: StageInput) => O {
  return (input) => {
    // Before anything is read or written: this worker must see the files the client's run marker records.
    checkRunMarker(input.config, input.options, input.run);
    return optionsFrom(input.config, input.options, input.force);
  };
}

/**
 * Stage hooks backed by the activity context: progress and checkpoints become heartbeats, the previous
 * attempt's checkpoint becomes `resumeFrom`, cancellation becomes `signal`. Call `stop()` in `finally`
 * (withActivityHooks does).
 */
export function activityHooks<C extends object = Record<string, unknown>>(
  step: string,
  unit: string,
  total = 0,
): StageHooks<C> & { stop(): void } {
  const prev = previousCheckpoint<C & Record<string, unknown>>();
  let done = prev?.done ?? 0;
  const hb = heartbeater(step, total, done, unit);
  return {
    resumeFrom: prev?.checkpoint,
    signal: currentSignal(),
    onProgress(d, t) {
      done = d;
      hb.setTotal(t);
      hb.beat(d);
    },
    checkpoint(state) {
      hb.beat(done, state as Record<string, unknown>, true);
    },
    onLoad: (load) => hb.setLoad(load),
    stop: () => hb.stop(),
  };
}
