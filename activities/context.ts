/**
 * The activity context as a stage sees it: the previous attempt's heartbeat details and the cancellation signal.
 * Works outside Temporal too (tests and benchmarks call activities directly): then there is no context, no
 * checkpoint and no signal.
 */
import { Context } from '@temporalio/activity';
import type { HeartbeatProgress } from '../src/temporal/types';

/** The running activity's context, or null outside an activity. */
export function currentContext(): Context | null {
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

/** The activity's cancellation signal (undefined outside Temporal). */
export function currentSignal(): AbortSignal | undefined {
  return currentContext()?.cancellationSignal;
}

/** Throws the cancellation reason when the workflow cancelled this activity (needs recent heartbeats). */
export function throwIfCancelled(): void {
  const ctx = currentContext();
  if (ctx?.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
}
