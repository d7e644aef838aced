/**
 * The infer workflow: an import, or the study arms — each a child workflow (infer-arm.ts) running its shards,
 * all arms sharing one pool of `temporal.max_parallel_activities` lanes.
 */
import { executeChild, patched, startChild, workflowInfo, type ChildWorkflowHandle } from '@temporalio/workflow';
import { batchInferWorkflow } from './batch-infer';
import { replicateKey } from '../src/stages/study/replicate-key';
import type { ArmPlan } from '../src/stages/infer/shards';
import { emptyTotals } from './arm-totals';
import { inferArmWorkflow, setWindowSignal, type InferArmInput } from './infer-arm';
import { childLabels, cpuInferActivities, DEFAULT_MAX_PARALLEL, stageActivities, type StageActivities } from './options';
import { setStep, trackProgress } from './progress';
import type { ArmResult, InferResult, StageInput, WorkflowProgress } from './types';
import { shareLanes } from './windows';

/** An arm's run in results and child ids: the arm's name, `<arm>#<r>` for its replicate r ≥ 1. */
const runKey = (plan: ArmPlan): string => replicateKey(plan.arm, plan.replicate);

export async function inferWorkflow(input: StageInput): Promise<InferResult> {
  const p = trackProgress('infer');
  const acts = stageActivities(input.config, 'infer');
  if (input.options.importFile) {
    setStep(p, 'import', 0, 1);
    const imported = await acts.importCorrections(input);
    setStep(p, 'done', 1, 1);
    return { imported };
  }
  // The Batch API (docs/batch.md) is a workflow of its own; histories from before it never take this branch.
  if (input.config.infer.backend === 'openai_batch' && patched('openai-batch')) {
    const batch = await executeChild(batchInferWorkflow, {
      workflowId: `${workflowInfo().workflowId}-batch`,
      args: [input],
      ...childLabels('infer'),
    });
    return { batch };
  }
  return shardedInfer(input, p, acts);
}

/**
 * Plan, then one child workflow per arm (`<infer id>-<arm>`) running that arm's shards on every GPU worker; all
 * arms' shards share one pool of `temporal.max_parallel_activities` lanes (see pooledArms).
 */
async function shardedInfer(input: StageInput, p: WorkflowProgress, acts: StageActivities): Promise<InferResult> {
  setStep(p, 'plan', 0, 1);
  // A study of non-LLM arms alone (docs/correctors.md) plans on the CPU queue too: it needs no GPU worker at all.
  const nonLlmOnly = input.config.study?.arms.every((a) => a.corrector !== undefined && a.corrector !== 'llm') ?? false;
  const arms = await (nonLlmOnly ? cpuInferActivities(input.config) : acts).planInfer(input);
  const parent = workflowInfo().workflowId;
  p.results.arms = Object.fromEntries(
    arms.map((a) => [runKey(a), { workflowId: `${parent}-${runKey(a)}`, lines: a.lines, shards: a.shards }]),
  );
  const out: Exclude<InferResult, { imported: unknown }> = {};
  let finished = 0;
  setStep(p, 'arms', 0, arms.length, 'arms');
  const onDone = (arm: string, r: ArmResult): void => {
    out[arm] = r;
    p.results[arm] = r;
    setStep(p, 'arms', ++finished, arms.length, 'arms');
  };
  await pooledArms(input, arms, onDone);
  setStep(p, 'done', arms.length, arms.length, 'arms');
  return out;
}

/** An arm in the pool: its lanes (the window it was started with or signalled) and its child, once started. */
interface PoolArm {
  plan: ArmPlan;
  window: number;
  child?: ChildWorkflowHandle<typeof inferArmWorkflow>;
}

type ArmOutcome = { arm: string; result: ArmResult } | { arm: string; error: unknown };

/**
 * All arms' shards in one pool of `temporal.max_parallel_activities` lanes, a lane being one inferShard activity
 * in flight. At most that many arm children run at once (queued arms wait); the lanes are shared out among the
 * running children as their windows. When a child finishes, its lanes start the next queued arm, and the rest go
 * to the children still running (the `setWindow` signal: the child spawns the extra lanes at once), so the tail of
 * a study keeps every lane busy. The windows never add up to more than the bound, and a window only grows, so a
 * child never has more shards in flight than the parent counts for it: the bound holds at every moment.
 */
async function pooledArms(input: StageInput, arms: ArmPlan[], onDone: (arm: string, r: ArmResult) => void): Promise<void> {
  const parent = workflowInfo().workflowId;
  const queued: PoolArm[] = arms.map((plan) => ({ plan, window: 0 }));
  const running: PoolArm[] = [];
  const outcomes = new Map<string, Promise<ArmOutcome>>();
  let free = Math.max(1, Math.floor(input.config.temporal.max_parallel_activities ?? DEFAULT_MAX_PARALLEL));
  const rebalance = async (): Promise<void> => {
    const before = running.map((a) => a.window);
    const starting: PoolArm[] = [];
    for (; free > 0 && queued.length; free--) starting.push(Object.assign(queued.shift()!, { window: 1 }));
    running.push(...starting);
    free = shareLanes(free, running);
    // All starts in one workflow task.
    await Promise.all(
      starting.map(async (a) => {
        const name = runKey(a.plan);
        const args: InferArmInput = { input, arm: a.plan, window: a.window, from: 0, acc: emptyTotals() };
        a.child = await startChild(inferArmWorkflow, { workflowId: `${parent}-${name}`, args: [args], ...childLabels('infer') });
        outcomes.set(
          name,
          a.child.result().then(
            (result): ArmOutcome => ({ arm: name, result }),
            (error: unknown): ArmOutcome => ({ arm: name, error }),
          ),
        );
      }),
    );
    // A child that finished before the signal reached it gives its lanes back when the parent sees it finish.
    before.forEach((w, i) => {
      if (running[i].window > w) void running[i].child!.signal(setWindowSignal, running[i].window).catch(() => undefined);
    });
  };
  await rebalance();
  while (outcomes.size > 0) {
    const done = await Promise.race(outcomes.values());
    outcomes.delete(done.arm);
    if ('error' in done) throw done.error;
    const i = running.findIndex((a) => runKey(a.plan) === done.arm);
    free += running[i].window;
    running.splice(i, 1);
    onDone(done.arm, done.result);
    await rebalance();
  }
}
