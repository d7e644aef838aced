/**
 * Sharded infer through the real workflows (plan → one child per arm → shards through the pool's windows,
 * continue-as-new after `infer.shards_per_run` → merge) on a local Temporal server with an in-process worker and a
 * deterministic echo backend: ≥ 1,000 one-line shards, merged outputs byte-identical to the single-runner stage,
 * and the size of every history printed (events and bytes), so docs/real-study.md's numbers for 1M lines × 8 arms rest on
 * a measurement; and a pool that hands a finished arm's lanes to an arm in the middle of its continue-as-new chain.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { createActivities, defaultDeps } from '../../activities';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { LlmBackend } from '../../src/llm';
import * as inference from '../../src/stages/infer/infer';
import { inferWorkflow, type InferArmInput } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { inferenceInputRecord } from '../helpers/records';
import { createLocalEnv } from '../helpers/temporal';
import { writeDefaultInput } from '../helpers/default-arms';

/** Answers with the OCR line (the last user message), latency 0: outputs are deterministic to the byte. */
export function echoBackend(): LlmBackend {
  return {
    id: 'echo',
    model: 'echo',
    concurrency: 4,
    async complete(messages) {
      const text = messages[messages.length - 1].content;
      return { text, promptTokens: 1, completionTokens: 1, latencyMs: 0, attempts: 1 };
    },
    async close() {},
  };
}

/** Datasets a and b, interleaved once (a…, b…, a…) so the merge must follow the input order, not the datasets. */
function writeInput(results: string, n: number): string[] {
  const ids: string[] = [];
  const rows: string[] = [];
  const a = Math.floor(n * 0.45);
  const b = Math.floor(n * 0.4);
  const add = (dataset: string, i: number) => {
    const id = `${dataset}-${String(i).padStart(5, '0')}`;
    ids.push(id);
    rows.push(JSON.stringify(inferenceInputRecord(id, dataset)));
  };
  for (let i = 0; i < a; i++) add('a', i);
  for (let i = 0; i < b; i++) add('b', i);
  for (let i = a; i < n - b; i++) add('a', i);
  writeDefaultInput(results, rows.join('\n') + '\n');
  return ids;
}

function configFor(results: string, queue: string, extra: { shardSize: number; perRun: number; maxParallel?: number }): Config {
  return parseConfig(
    {
      paths: { results_dir: results },
      infer: { backend: 'openai', arms: ['rag', 'zero_shot'], shard_size: extra.shardSize, shards_per_run: extra.perRun },
      temporal: { queues: { cpu: queue, gpu: queue }, concurrency: { cpu: 8, gpu: 8 }, max_parallel_activities: extra.maxParallel ?? 32 },
    },
    'sharded infer test config',
    { env: {} },
  );
}

interface HistorySize {
  workflowId: string;
  runs: number;
  maxEvents: number;
  maxBytes: number;
  events: number;
}

/** Every run of a continue-as-new chain, newest first, with its event count and JSON size. */
async function historySize(client: Client, workflowId: string): Promise<HistorySize> {
  const out: HistorySize = { workflowId, runs: 0, maxEvents: 0, maxBytes: 0, events: 0 };
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>> = await client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const events = history.events ?? [];
    const bytes = Buffer.byteLength(JSON.stringify(history));
    Object.assign(out, {
      runs: out.runs + 1,
      maxEvents: Math.max(out.maxEvents, events.length),
      maxBytes: Math.max(out.maxBytes, bytes),
      events: out.events + events.length,
    });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return out;
}

/** The input of every run of an arm's continue-as-new chain, first run first. */
async function armRunInputs(client: Client, workflowId: string): Promise<InferArmInput[]> {
  const inputs: InferArmInput[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>> = await client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    inputs.unshift(
      defaultPayloadConverter.fromPayload<InferArmInput>(
        started!.input!.payloads![0] as Parameters<typeof defaultPayloadConverter.fromPayload>[0],
      ),
    );
    runId = started?.continuedExecutionRunId ?? undefined;
  }
  return inputs;
}

/** Each arm's merged output equals the single-runner stage's on the same input, byte for byte, in input order. */
async function expectSingleRunnerBytes(
  result: Record<string, inference.ArmResult>,
  lines: number,
  ids: string[],
  queue: string,
): Promise<void> {
  const refDir = mkdtempSync(path.join(os.tmpdir(), 'infer-single-'));
  writeInput(refDir, lines);
  const refOptions = inference.optionsFrom(configFor(refDir, queue, { shardSize: 1, perRun: 400 }), {});
  for (const c of ['rag', 'zero_shot'] as const) {
    await inference.runArm(
      refOptions,
      refOptions.arms.find((a) => a.name === c)!,
      {},
      async () => echoBackend(),
    );
    const output = result[c].output;
    expect(readFileSync(output, 'utf8'), c).to.equal(readFileSync(refOptions.arms.find((a) => a.name === c)!.output, 'utf8'));
    expect(
      readFileSync(output, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).sample_id),
    ).to.deep.equal(ids);
    expect(result[c]).to.include({ written: lines, succeeded: lines, failed: 0 });
  }
}

describe('sharded infer (real workflows on a local Temporal server, echo backend)', function () {
  this.timeout(600000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await createLocalEnv();
    await workflowBundle();
  });
  after(async () => env?.teardown());

  type Acts = ReturnType<typeof createActivities>;
  async function runSharded(
    config: Config,
    queue: string,
    workflowId: string,
    options: StageInput['options'] = {},
    wrap: (acts: Acts) => Acts = (a) => a,
  ) {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: wrap(createActivities({ ...defaultDeps(), openBackend: async () => echoBackend() })),
      maxConcurrentActivityTaskExecutions: 8,
    });
    const input: StageInput = { run: workflowId, config, options, force: false };
    return worker.runUntil(env.client.workflow.execute(inferWorkflow, { taskQueue: queue, workflowId, args: [input] }));
  }

  it('runs 1,040 one-line shards (2 arms × 520 lines) through continue-as-new; outputs equal the single-runner run byte for byte', async () => {
    const results = mkdtempSync(path.join(os.tmpdir(), 'infer-shards-'));
    const ids = writeInput(results, 520);
    const queue = `shards-${Date.now()}`;
    const config = configFor(results, queue, { shardSize: 1, perRun: 400 });
    const workflowId = `infer-shards-${Date.now()}`;
    const t0 = Date.now();
    const result = (await runSharded(config, queue, workflowId)) as Record<string, inference.ArmResult>;
    const seconds = (Date.now() - t0) / 1000;

    await expectSingleRunnerBytes(result, 520, ids, queue);

    const sizes = [await historySize(env.client, workflowId)];
    for (const arm of ['rag', 'zero_shot']) sizes.push(await historySize(env.client, `${workflowId}-${arm}`));
    const shards = 1040;
    console.log(
      `      1,040 shards in ${seconds.toFixed(1)} s (${((seconds * 1000) / shards).toFixed(1)} ms per shard, 8 activity slots, 1 worker)`,
    );
    for (const s of sizes)
      console.log(
        `      ${s.workflowId}: ${s.runs} run(s), ${s.events} events in all, largest run ${s.maxEvents} events / ${(s.maxBytes / 1024).toFixed(0)} KiB`,
      );
    const armChains = sizes.slice(1);
    for (const s of armChains) {
      expect(s.runs, 'continue-as-new after 400 shards: 520 shards take 2 runs').to.equal(2);
      expect(s.maxEvents).to.be.lessThan(50_000);
      expect(s.maxBytes).to.be.lessThan(50 * 1024 * 1024);
    }
    expect(
      sizes[0].maxEvents,
      'the parent only plans, starts one child per arm and hands the lanes of the first to finish to the other',
    ).to.be.lessThan(40);
    expect(existsSync(`${result.rag.output}.parts`)).to.equal(true);
  });

  it("the pool hands a finished arm's lanes to an arm mid-way through its continue-as-new chain; outputs unchanged", async () => {
    const results = mkdtempSync(path.join(os.tmpdir(), 'infer-pool-can-'));
    const lines = 40;
    const ids = writeInput(results, lines);
    const queue = `pool-can-${Date.now()}`;
    // 20 two-line shards per arm, 4 a run (5 runs), 4 lanes: 2 each until zero_shot is done, then rag has 4.
    const config = configFor(results, queue, { shardSize: 2, perRun: 4, maxParallel: 4 });
    const workflowId = `infer-pool-can-${Date.now()}`;
    const running = { rag: 0, zero_shot: 0 };
    let maxTotal = 0;
    let maxRag = 0;
    // rag's shards after its first run wait for zero_shot's merge, so rag is mid-chain when it gets the lanes.
    let zeroShotMerged!: () => void;
    const gate = new Promise<void>((resolve) => (zeroShotMerged = resolve));
    const firstRun = new Set(['a:0', 'a:1', 'a:2', 'a:3']);
    const slowRag = (acts: Acts): Acts => ({
      ...acts,
      inferShard: async (arg) => {
        const arm = arg.arm.arm as keyof typeof running;
        if (arm === 'rag' && !firstRun.has(`${arg.shard.dataset}:${arg.shard.index}`)) await gate;
        running[arm]++;
        maxTotal = Math.max(maxTotal, running.rag + running.zero_shot);
        maxRag = Math.max(maxRag, running.rag);
        try {
          // rag's last run (shards 16–19) starts with the grown window of 4: each of its shards waits until all
          // four are in flight, so the pool's lanes are seen at work however slowly the machine dispatches them
          // (without the grown window they never are, and the test times out). Earlier shards take a while.
          if (arm === 'rag' && arg.shard.index >= 16) while (running.rag < 4) await new Promise((r) => setTimeout(r, 5));
          else if (arm === 'rag') await new Promise((r) => setTimeout(r, 200));
          return await acts.inferShard(arg);
        } finally {
          running[arm]--;
        }
      },
      mergeInferArm: async (arg) => {
        const merged = await acts.mergeInferArm(arg);
        if (arg.arm.arm === 'zero_shot') zeroShotMerged();
        return merged;
      },
    });
    const result = (await runSharded(config, queue, workflowId, {}, slowRag)) as Record<string, inference.ArmResult>;
    await expectSingleRunnerBytes(result, lines, ids, queue);
    expect(maxTotal, 'shards in flight over both arms').to.equal(4);
    expect(maxRag, 'rag after zero_shot finished').to.equal(4);
    const rag = await armRunInputs(env.client, `${workflowId}-rag`);
    expect(
      rag.map((r) => r.from),
      'rag continues as new every 4 shards',
    ).to.deep.equal([0, 4, 8, 12, 16]);
    // The signal lands in run 2 (or, on a slow machine, 3); from then on every run starts with the grown window.
    const windows = rag.map((r) => r.window);
    expect(windows.slice(0, 2), 'rag runs 1-2 start with its share').to.deep.equal([2, 2]);
    expect(windows.at(-1), 'the grown window carries over continue-as-new').to.equal(4);
    expect(windows, 'a window only grows').to.deep.equal([...windows].sort((x, y) => x - y));
    expect((await armRunInputs(env.client, `${workflowId}-zero_shot`)).map((r) => r.window)).to.deep.equal([2, 2, 2, 2, 2]);
  });
});
