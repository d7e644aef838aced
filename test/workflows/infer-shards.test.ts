/**
 * Sharded infer through the real workflows (plan → one child per arm → shards through a window, continue-as-new
 * after `infer.shards_per_run` → merge) on a local Temporal server with an in-process worker and a deterministic
 * echo backend: ≥ 1,000 one-line shards, merged outputs byte-identical to the single-runner stage, and the size
 * of every history printed (events and bytes), so the README's numbers for 1M lines × 8 arms rest on a measurement.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { createActivities, defaultDeps } from '../../activities';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { LlmBackend } from '../../src/llm';
import * as inference from '../../src/stages/infer';
import { inferWorkflow } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { inferenceInputRecord } from '../helpers/records';
import { createLocalEnv } from '../helpers/temporal';

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
  mkdirSync(path.join(results, 'phase5'), { recursive: true });
  writeFileSync(path.join(results, 'phase5', 'inference_input.jsonl'), rows.join('\n') + '\n');
  return ids;
}

function configFor(results: string, queue: string, extra: { shardSize: number; perRun: number }): Config {
  return parseConfig(
    {
      paths: { results_dir: results },
      infer: { backend: 'openai', conditions: ['rag', 'zero_shot'], shard_size: extra.shardSize, shards_per_run: extra.perRun },
      temporal: { queues: { cpu: queue, gpu: queue }, concurrency: { cpu: 8, gpu: 8 }, max_parallel_activities: 32 },
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
    const history: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>> = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    const bytes = Buffer.byteLength(JSON.stringify(history));
    Object.assign(out, { runs: out.runs + 1, maxEvents: Math.max(out.maxEvents, events.length), maxBytes: Math.max(out.maxBytes, bytes), events: out.events + events.length });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return out;
}

describe('sharded infer (real workflows on a local Temporal server, echo backend)', function () {
  this.timeout(600000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await createLocalEnv();
    await workflowBundle();
  });
  after(async () => env?.teardown());

  async function runSharded(config: Config, queue: string, workflowId: string, options: StageInput['options'] = {}) {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: createActivities({ ...defaultDeps(), openBackend: async () => echoBackend() }),
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
    const result = (await runSharded(config, queue, workflowId)) as Record<string, inference.ConditionResult>;
    const seconds = (Date.now() - t0) / 1000;

    const refDir = mkdtempSync(path.join(os.tmpdir(), 'infer-single-'));
    writeInput(refDir, 520);
    const refConfig = configFor(refDir, queue, { shardSize: 1, perRun: 400 });
    const refOptions = inference.optionsFrom(refConfig, {});
    for (const c of ['rag', 'zero_shot'] as const) {
      await inference.runCondition(refOptions, c, {}, async () => echoBackend());
      const output = result[c].output;
      expect(readFileSync(output, 'utf8'), c).to.equal(readFileSync(refOptions.arms.find((a) => a.name === c)!.output, 'utf8'));
      expect(readFileSync(output, 'utf8').trim().split('\n').map((l) => JSON.parse(l).sample_id)).to.deep.equal(ids);
      expect(result[c]).to.include({ written: 520, succeeded: 520, failed: 0 });
    }

    const sizes = [await historySize(env.client, workflowId)];
    for (const arm of ['rag', 'zero_shot']) sizes.push(await historySize(env.client, `${workflowId}-${arm}`));
    const shards = 1040;
    console.log(`      1,040 shards in ${seconds.toFixed(1)} s (${((seconds * 1000) / shards).toFixed(1)} ms per shard, 8 activity slots, 1 worker)`);
    for (const s of sizes) console.log(`      ${s.workflowId}: ${s.runs} run(s), ${s.events} events in all, largest run ${s.maxEvents} events / ${(s.maxBytes / 1024).toFixed(0)} KiB`);
    const armChains = sizes.slice(1);
    for (const s of armChains) {
      expect(s.runs, 'continue-as-new after 400 shards: 520 shards take 2 runs').to.equal(2);
      expect(s.maxEvents).to.be.lessThan(50_000);
      expect(s.maxBytes).to.be.lessThan(50 * 1024 * 1024);
    }
    expect(sizes[0].maxEvents, 'the parent only plans and starts one child per arm').to.be.lessThan(40);
    expect(existsSync(`${result.rag.output}.parts`)).to.equal(true);
  });
});
