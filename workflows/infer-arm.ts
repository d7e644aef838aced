/** One arm of the sharded infer: a child workflow of the infer workflow, one per arm. */
import { continueAsNew, defineSignal, isCancellation, setHandler } from '@temporalio/workflow';
import type { ArmPlan } from '../src/stages/infer/shards';
import { replicateKey } from '../src/stages/study/replicate-key';
import { addShard, shardRefs, type ArmTotals } from './arm-totals';
import { cpuInferActivities, stageActivities } from './options';
import { recordFailure, setStep, trackProgress } from './progress';
import type { ArmResult, StageInput } from './types';
import { growingWindow } from './windows';

export type { ArmTotals } from './arm-totals';

/** Parent → arm child of the sharded infer: the arm's new window (shards in flight); it only ever grows. */
export const setWindowSignal = defineSignal<[number]>('setWindow');

export interface InferArmInput {
  input: StageInput;
  arm: ArmPlan;
  /** Shards in flight at once; the pool's `setWindow` signal raises it, and it carries over continue-as-new. */
  window: number;
  /** Index of the first shard this run executes (runs continue as new after `infer.shards_per_run`). */
  from: number;
  acc: ArmTotals;
}

/**
 * One arm of the sharded infer: its shards through a window, `infer.shards_per_run` per run (then continue as
 * new, so the history stays far below Temporal's limits), then the merge into the arm's corrections.jsonl.
 */
export async function inferArmWorkflow(a: InferArmInput): Promise<ArmResult> {
  const p = trackProgress('infer');
  // A non-LLM arm (docs/correctors.md) runs its shards and its merge on the CPU queue and never asks an LLM.
  const acts = a.arm.corrector ? cpuInferActivities(a.input.config) : stageActivities(a.input.config, 'infer');
  const runShard = a.arm.corrector ? acts.correctShard : acts.inferShard;
  const all = shardRefs(a.arm);
  const batch = all.slice(a.from, a.from + (a.input.config.infer.shards_per_run ?? 1000));
  const lines = { done: a.acc.lines, total: a.arm.lines };
  Object.assign(p.results, { arm: replicateKey(a.arm.arm, a.arm.replicate), lines, linesAtRunStart: a.acc.lines });
  setStep(p, 'shards', a.from, all.length, 'shards');
  let window = a.window;
  const pool = growingWindow(
    batch,
    () => window,
    async (shard) => {
      addShard(a.acc, await runShard({ input: a.input, arm: a.arm, shard }));
      lines.done = a.acc.lines;
      setStep(p, 'shards', a.acc.shards, all.length, 'shards');
    },
  );
  // The infer pool hands this arm more lanes when another arm finishes (never fewer). Without a signal this runs
  // exactly the commands of a fixed window, so histories recorded without the signal replay unchanged.
  setHandler(setWindowSignal, (w) => {
    window = Math.max(window, w);
    pool.grow();
  });
  try {
    await pool.done();
  } catch (err) {
    // Failed for good (a shard's outage outlasted its budget, bad input): keep what succeeded where analyze reads it.
    // The merge may wait behind the shards still queued, so the reason is in the progress query before it.
    if (!isCancellation(err)) {
      recordFailure(p, err);
      await acts.mergeInferArm({ input: a.input, arm: a.arm, partial: true }).catch(() => undefined);
    }
    throw err;
  }
  if (a.from + batch.length < all.length) return continueAsNew<typeof inferArmWorkflow>({ ...a, window, from: a.from + batch.length });
  setStep(p, 'merge', all.length, all.length, 'shards');
  const merged = await acts.mergeInferArm({ input: a.input, arm: a.arm });
  setStep(p, 'done', all.length, all.length, 'shards');
  const elapsedMs = Date.now() - Date.parse(a.acc.startedAt);
  // The plan's run tags (replicate, seed, price), each only when the plan has it.
  const { replicate, seed, price } = a.arm;
  const tags = { ...(replicate === undefined ? {} : { replicate, seed }), ...(price ? { price } : {}) };
  // The corrections' sha256 (an attach to this run checks it); merges recorded before it carry none.
  const outputFile = merged.outputFile ? { outputFile: merged.outputFile } : {};
  return { arm: a.arm.arm, output: merged.output, ...outputFile, ...a.acc.counts, elapsedMs, skipped: merged.skipped, ...tags };
}
