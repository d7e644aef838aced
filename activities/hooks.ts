/**
 * What turns a plain stage into an activity: stage hooks fed by the activity context (throttled heartbeats that
 * carry progress + checkpoint, resume details from the previous attempt, cancellation), and a stage's options
 * from the activity's input.
 */
import type { RunOptions, StageHooks, StageInput } from '../src/stages/shared/types';
import type { Config } from '../src/config/schema';
import { checkRunMarker } from '../src/stages/shared/run-marker';
import { currentSignal, previousCheckpoint } from './context';
import { heartbeater } from './heartbeat';

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
