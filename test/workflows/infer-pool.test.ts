/**
 * The sharded infer's pool: all arms' inferShard activities share
 * `temporal.max_parallel_activities` lanes. Real workflows on a local Temporal server with stand-in activities
 * that take a while per shard, counting how many shards are in flight at every moment: the bound holds across
 * arms (also with more arms than lanes), and a finished arm's lanes go to the arm still running.
 */
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import type { ArmPlan } from '../../src/stages/infer/shards';
import { inferWorkflow } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { createLocalEnv } from '../helpers/temporal';

const SHARD_MS = 150;

/** One dataset of `shards` one-line shards. */
function armPlan(arm: string, shards: number): ArmPlan {
  const plan = {
    dir: '/unused',
    input: '/unused',
    datasets: [{ dataset: 'A', lines: shards }],
    lines: shards,
    duplicates: 0,
    duplicateIds: [],
  };
  return { arm, prompt: 'rag', output: `/unused/${arm}.jsonl`, plan, shardSize: 1, lines: shards, shards } as ArmPlan;
}

interface Recorder {
  /** Shards in flight right now, per arm. */
  running: Record<string, number>;
  /** Most shards in flight at once, over all arms. */
  maxTotal: number;
  /** Every shard that finished, as `arm:index`. */
  done: string[];
  /** Arms merged, in order, with the time. */
  merged: { arm: string; at: number }[];
  /** [time, arm, shards of that arm in flight] after every shard start. */
  starts: [number, string, number][];
}

function standIns(arms: ArmPlan[], rec: Recorder) {
  const counts = {
    model: 'm',
    written: 1,
    skippedExisting: 0,
    succeeded: 1,
    failed: 0,
    failuresByReason: {},
    promptTypes: {},
    promptTokens: 0,
    completionTokens: 0,
    elapsedMs: 1,
  };
  return {
    planInfer: async () => arms,
    inferShard: async (arg: { arm: ArmPlan; shard: { index: number } }) => {
      const arm = arg.arm.arm;
      rec.running[arm] = (rec.running[arm] ?? 0) + 1;
      rec.maxTotal = Math.max(
        rec.maxTotal,
        Object.values(rec.running).reduce((a, b) => a + b, 0),
      );
      rec.starts.push([Date.now(), arm, rec.running[arm]]);
      await new Promise((r) => setTimeout(r, SHARD_MS)); // long enough for shards of all arms to overlap
      rec.running[arm]--;
      rec.done.push(`${arm}:${arg.shard.index}`);
      return { ...counts, shard: String(arg.shard.index), lines: 1 };
    },
    mergeInferArm: async (arg: { arm: ArmPlan }) => {
      rec.merged.push({ arm: arg.arm.arm, at: Date.now() });
      return { output: arg.arm.output, records: arg.arm.lines, failed: 0, skipped: { total: 0, kinds: {} } };
    },
  };
}

describe('infer pool: all arms share max_parallel_activities lanes (real local Temporal server)', function () {
  this.timeout(120000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await createLocalEnv();
    await workflowBundle();
  });
  after(async () => env?.teardown());

  async function runPool(arms: ArmPlan[], maxParallel: number): Promise<{ rec: Recorder; result: Record<string, { written: number }> }> {
    const queue = `pool-${Date.now()}`;
    const rec: Recorder = { running: {}, maxTotal: 0, done: [], merged: [], starts: [] };
    const config = parseConfig({ temporal: { queues: { cpu: queue, gpu: queue }, max_parallel_activities: maxParallel } }, 'test', {
      env: {},
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: standIns(arms, rec),
    });
    const input: StageInput = { run: queue, config, options: {}, force: false };
    const result = await worker.runUntil(
      env.client.workflow.execute(inferWorkflow, { taskQueue: queue, workflowId: `phase5-${queue}-infer`, args: [input] }),
    );
    return { rec, result: result as Record<string, { written: number }> };
  }

  it('3 arms with max_parallel_activities 2: never more than 2 shards in flight across the arms, and every shard runs once', async () => {
    const arms = ['a1', 'a2', 'a3'].map((a) => armPlan(a, 3));
    const { rec, result } = await runPool(arms, 2);
    expect(rec.maxTotal, 'shards in flight over all arms').to.equal(2);
    expect([...rec.done].sort()).to.deep.equal(arms.flatMap((a) => [0, 1, 2].map((i) => `${a.arm}:${i}`)).sort());
    expect(rec.merged.map((m) => m.arm).sort()).to.deep.equal(['a1', 'a2', 'a3']);
    expect(Object.keys(result).sort()).to.deep.equal(['a1', 'a2', 'a3']);
    for (const a of ['a1', 'a2', 'a3']) expect(result[a].written, a).to.equal(3);
  });

  it('arms of 2 and 12 shards with max_parallel_activities 4: once the short arm is merged, the long one runs 4 shards at once', async () => {
    const { rec, result } = await runPool([armPlan('short', 2), armPlan('long', 12)], 4);
    expect(rec.maxTotal, 'shards in flight over all arms').to.equal(4);
    const shortMerged = rec.merged.find((m) => m.arm === 'short')!.at;
    const before = rec.starts.filter(([t, arm]) => arm === 'long' && t < shortMerged).map(([, , n]) => n);
    const after = rec.starts.filter(([t, arm]) => arm === 'long' && t >= shortMerged).map(([, , n]) => n);
    expect(Math.max(...before), 'the long arm while the short one runs: its share, 2 lanes').to.equal(2);
    expect(Math.max(...after), 'the long arm after the short one finished: every lane').to.equal(4);
    expect(rec.done.filter((d) => d.startsWith('long:'))).to.have.length(12);
    expect(result.long.written).to.equal(12);
    expect(result.short.written).to.equal(2);
  });
});
