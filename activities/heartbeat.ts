/** Throttled progress heartbeats with a keep-alive, carrying progress, checkpoint and the LLM endpoint's load. */
import type { HeartbeatProgress } from '../src/temporal/types';
import type { LlmLoad } from '../src/stages/infer/llm-load';
import { currentContext, throwIfCancelled } from './context';

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
