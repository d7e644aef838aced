import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import { createLocalEnv } from '../helpers/temporal';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import { armNames } from '../../src/stages/study/arm-names';
import { checkEnvironment } from '../../activities/doctor';
import { buildWorkflow, doctorWorkflow, exportWorkflow, phase5Workflow } from '../../workflows';
import type { DoctorQueueResult } from '../../workflows';
import type { Phase5Input, Progress, StageInput } from '../../workflows/types';

describe('workflows (real local Temporal server)', function () {
  this.timeout(120000);
  let env: TestWorkflowEnvironment;

  before(async () => {
    env = await createLocalEnv();
    await workflowBundle();
  });
  after(async () => {
    await env?.teardown();
  });

  async function withWorkers<T>(queues: Record<string, object>, fn: () => Promise<T>): Promise<T> {
    const bundle = await workflowBundle();
    const workers = await Promise.all(
      Object.entries(queues).map(([taskQueue, activities]) =>
        Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities }),
      ),
    );
    const runs = workers.map((w) => w.run());
    try {
      return await fn();
    } finally {
      workers.forEach((w) => w.shutdown());
      await Promise.all(runs);
    }
  }

  it('doctorWorkflow does a real activity round trip on each queue and names a queue without a worker', async () => {
    const resultsDir = mkdtempSync(path.join(os.tmpdir(), 'doctor-'));
    const res = (await withWorkers({ 'test-cpu': { checkEnvironment } }, () =>
      env.client.workflow.execute(doctorWorkflow, {
        taskQueue: 'test-cpu',
        workflowId: `doctor-${Date.now()}`,
        args: [{ queues: ['test-cpu', 'test-nobody'], resultsDir, pickupTimeout: '2s' }],
      }),
    )) as DoctorQueueResult[];
    const cpu = res.find((r) => r.queue === 'test-cpu')!;
    expect(cpu.report?.pid).to.equal(process.pid);
    expect(cpu.report?.checks.map((c) => c.name)).to.include.members(['results dir writable', 'onnxruntime-node', 'usearch']);
    expect(cpu.report?.checks.find((c) => c.name === 'results dir writable')?.ok).to.equal(true);
    const none = res.find((r) => r.queue === 'test-nobody')!;
    expect(none.ok).to.equal(false);
    expect(none.error).to.contain('test-nobody');
  });

  // Orchestration only: plain-object activities record where and in which order stages ran.
  function recordingActivities(queue: string, calls: string[]) {
    const rec =
      (name: string, result: unknown = {}) =>
      async (arg: { force?: boolean; input?: StageInput } & Partial<StageInput>) => {
        const input = (arg.input ?? arg) as StageInput;
        calls.push(`${queue}:${name}${input.force ? '!' : ''}`);
        return result;
      };
    return {
      // The build: the study's own corpora and witness indexes (none here), the run's corpus.
      planStudyBuilds: rec('planStudyBuilds', { corpora: [], witnessIndexes: [] }),
      buildRunCorpus: rec('buildRunCorpus', { sentences: 10 }),
      planIndexShards: rec('planIndexShards', {
        reused: null,
        rows: 10,
        corpusSha256: 'c',
        shards: [
          { part: 0, start: 0, end: 8 },
          { part: 1, start: 8, end: 10 },
        ],
      }),
      embedIndexShard: rec('embedIndexShard', { rows: 8 }),
      assembleIndex: rec('assembleIndex', { vectors: 10 }),
      planExport: rec('planExport', {
        datasets: [
          {
            dataset: 'A',
            samples: 3,
            shards: [
              { dataset: 'A', index: 0, start: 0, end: 2 },
              { dataset: 'A', index: 1, start: 2, end: 3 },
            ],
          },
          { dataset: 'B', samples: 1, shards: [{ dataset: 'B', index: 0, start: 0, end: 1 }] },
        ],
      }),
      exportShard: rec('exportShard', { records: 1, fallbacks: 0 }),
      mergeExport: rec('mergeExport', { records: 4 }),
      // Sharded infer: one plan per arm the config names (3 lines of A in shards of 2), then the merge.
      planInfer: async (input: StageInput) => {
        calls.push(`${queue}:planInfer`);
        const plan = {
          dir: '/unused',
          input: '/unused',
          datasets: [{ dataset: 'A', lines: 3 }],
          lines: 3,
          duplicates: 0,
          duplicateIds: [],
        };
        return armNames(input.config, input.options).map((arm) => ({
          arm,
          output: `/unused/${arm}.jsonl`,
          plan,
          shardSize: 2,
          lines: 3,
          shards: 2,
        }));
      },
      inferShard: async (arg: { arm: { arm: string }; shard: { index: number } }) => {
        calls.push(`${queue}:inferShard:${arg.arm.arm}:${arg.shard.index}`);
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
        return { ...counts, shard: String(arg.shard.index), lines: arg.shard.index === 0 ? 2 : 1 };
      },
      mergeInferArm: async (arg: { arm: { arm: string } }) => {
        calls.push(`${queue}:mergeInferArm:${arg.arm.arm}`);
        return { output: `/unused/${arg.arm.arm}.jsonl`, records: 3, failed: 0, skipped: { total: 0, kinds: {} } };
      },
      importCorrections: rec('importCorrections'),
      analyzeResults: rec('analyzeResults', { datasets: 2 }),
    };
  }

  it('phase5Workflow runs build → export → infer → analyze on the queues the config names', async () => {
    const config = parseConfig({ temporal: { queues: { cpu: 'wf-cpu', gpu: 'wf-gpu' } } }, 'test', { env: {} });
    const calls: string[] = [];
    const input: Phase5Input = { run: `t${Date.now()}`, config, options: {}, forceStages: ['export'] };
    let progress: Progress | undefined;
    const result = await withWorkers(
      { 'wf-cpu': recordingActivities('cpu', calls), 'wf-gpu': recordingActivities('gpu', calls) },
      async () => {
        const r = await env.client.workflow.execute(phase5Workflow, {
          taskQueue: 'wf-cpu',
          workflowId: `phase5-${input.run}`,
          args: [input],
        });
        progress = await env.client.workflow.getHandle(`phase5-${input.run}`).query<Progress>('progress');
        return r;
      },
    );
    expect(Object.keys(result as object)).to.deep.equal(['build', 'export', 'infer', 'analyze']);
    const order = calls.map((c) => c.replace(/!$/, ''));
    // The build plans the study's own builds, then embeds the run's corpus in shards: plan, one activity per shard, assemble.
    expect(order.slice(0, 7)).to.deep.equal([
      'cpu:planStudyBuilds',
      'cpu:buildRunCorpus',
      'cpu:planIndexShards',
      'cpu:embedIndexShard',
      'cpu:embedIndexShard',
      'cpu:assembleIndex',
      'cpu:planExport',
    ]);
    expect(order.filter((c) => c === 'cpu:exportShard')).to.have.length(3);
    expect(order[10]).to.equal('cpu:mergeExport');
    // Infer: the plan, then each arm's shards and merge (arms run side by side, so only their own order is fixed).
    const infer = order.slice(11, -1);
    expect(infer[0]).to.equal('gpu:planInfer');
    for (const arm of ['rag', 'zero_shot']) {
      expect(infer.filter((c) => c.includes(`:${arm}`))).to.have.members([
        `gpu:inferShard:${arm}:0`,
        `gpu:inferShard:${arm}:1`,
        `gpu:mergeInferArm:${arm}`,
      ]);
      const merge = infer.indexOf(`gpu:mergeInferArm:${arm}`);
      expect(merge).to.be.greaterThan(Math.max(infer.indexOf(`gpu:inferShard:${arm}:0`), infer.indexOf(`gpu:inferShard:${arm}:1`)));
    }
    expect(infer).to.have.length(7);
    expect(order.at(-1)).to.equal('cpu:analyzeResults');
    expect(calls.filter((c) => c.endsWith('!')).every((c) => /planExport|exportShard|mergeExport/.test(c))).to.equal(true);
    // Each stage ran as its own child workflow with an id derived from the run name.
    const child = await env.client.workflow.getHandle(`phase5-${input.run}-export`).describe();
    expect(child.status.name).to.equal('COMPLETED');
    expect(progress?.stages).to.deep.equal({ build: 'done', export: 'done', infer: 'done', analyze: 'done' });
  });

  it('exportWorkflow keeps at most temporal.max_parallel_activities shard activities in flight and runs them all', async () => {
    const config = parseConfig({ temporal: { queues: { cpu: 'wf4-cpu', gpu: 'wf4-gpu' }, max_parallel_activities: 2 } }, 'test', {
      env: {},
    });
    const shards = Array.from({ length: 7 }, (_, index) => ({ dataset: 'A', index, start: index, end: index + 1 }));
    let running = 0;
    let maxRunning = 0;
    const exported: number[] = [];
    const acts = {
      ...recordingActivities('cpu', []),
      planExport: async () => ({ datasets: [{ dataset: 'A', samples: 7, shards }] }),
      exportShard: async (arg: { shard: { index: number } }) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        // Each waits for a second shard in flight (unless it is the last one left), so the cap is reached
        // however slowly the machine dispatches; then it stays a while, for an unbounded fan-out to show.
        while (running < 2 && exported.length + running < shards.length) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, 50));
        running--;
        exported.push(arg.shard.index);
        return { records: 1, fallbacks: 0 };
      },
    };
    const input: StageInput = { run: `w${Date.now()}`, config, options: {}, force: false };
    const result = await withWorkers({ 'wf4-cpu': acts }, () =>
      env.client.workflow.execute(exportWorkflow, { taskQueue: 'wf4-cpu', workflowId: `phase5-${input.run}-export`, args: [input] }),
    );
    expect(maxRunning).to.equal(2);
    expect([...exported].sort()).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
    expect(result.shards).to.equal(7);
  });

  it('skips stages not asked for and the baseline when --baseline-dir is given', async () => {
    const config = parseConfig({ temporal: { queues: { cpu: 'wf2-cpu', gpu: 'wf2-gpu' } } }, 'test', { env: {} });
    const calls: string[] = [];
    const input: Phase5Input = { run: `s${Date.now()}`, config, options: { baselineDir: '/tmp/p2' }, stages: ['infer', 'analyze'] };
    await withWorkers({ 'wf2-cpu': recordingActivities('cpu', calls), 'wf2-gpu': recordingActivities('gpu', calls) }, () =>
      env.client.workflow.execute(phase5Workflow, { taskQueue: 'wf2-cpu', workflowId: `phase5-${input.run}`, args: [input] }),
    );
    // The two shards run side by side: either may start first; plan before them, merge and analyze after.
    expect(calls[0]).to.equal('gpu:planInfer');
    expect([...calls.slice(1, 3)].sort()).to.deep.equal(['gpu:inferShard:rag:0', 'gpu:inferShard:rag:1']);
    expect(calls.slice(3)).to.deep.equal(['gpu:mergeInferArm:rag', 'cpu:analyzeResults']);
  });

  it('a non-retryable input error fails the stage with its message instead of retrying forever', async () => {
    const config = parseConfig({ temporal: { queues: { cpu: 'wf3-cpu', gpu: 'wf3-gpu' } } }, 'test', { env: {} });
    const { ApplicationFailure } = await import('@temporalio/common');
    let attempts = 0;
    const acts = {
      ...recordingActivities('cpu', []),
      buildRunCorpus: async () => {
        attempts++;
        throw ApplicationFailure.create({ type: 'UserInputError', message: 'no metadata file at /nowhere', nonRetryable: true });
      },
    };
    const input: StageInput = { run: `e${Date.now()}`, config, options: {}, force: false };
    try {
      await withWorkers({ 'wf3-cpu': acts }, () =>
        env.client.workflow.execute(buildWorkflow, { taskQueue: 'wf3-cpu', workflowId: `phase5-${input.run}-build`, args: [input] }),
      );
      expect.fail('should fail');
    } catch (err) {
      expect(err).to.be.instanceOf(WorkflowFailedError);
      const activityFailure = (err as WorkflowFailedError).cause as (Error & { cause?: Error }) | undefined;
      const msg = String(activityFailure?.cause?.message ?? (err as Error).message);
      expect(msg).to.contain('no metadata file at /nowhere');
    }
    expect(attempts).to.equal(1);
  });
});
