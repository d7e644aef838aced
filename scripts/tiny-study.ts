/**
 * A tiny but real study (the demo config at a few samples, the real e5 model and tiny local LLM) on its own
 * Temporal dev server (free ports, temp db) with in-process workers on unique task queues. Used by
 * `npm run record-histories` and by the reset test, so both exercise exactly what a user runs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { rebasePaths } from '../src/config/relative-paths';
import type { Worker } from '@temporalio/worker';
import type { NativeConnection } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { PROJECT_ROOT, parseConfig } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { freePort, startServer, stopServer } from '../src/temporal/server';
import { createWorkers } from '../bin/cli/worker-runtime';
import { demoDataFallback } from '../bin/cli/commands/demo';
import { phase5Workflow } from '../workflows';
import { runWorkflowId, type Phase5Input, type Phase5Result } from '../workflows/types';

type Raw = Record<string, unknown>;

function deepMerge(base: Raw, over: Raw): Raw {
  const out: Raw = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    const bothObjects = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b);
    out[k] = bothObjects ? deepMerge(b as Raw, v as Raw) : v;
  }
  return out;
}

/** configs/demo.yaml shrunk: one dataset, 300 corpus sentences, 2-sample shards, short generations. */
export async function tinyStudyConfig(dir: string, overrides: Raw = {}): Promise<Config> {
  // Relative to configs/ (src/config/relative-paths.ts): made absolute, as loading the file would.
  const demo = rebasePaths(
    YAML.parse(readFileSync(path.join(PROJECT_ROOT, 'configs', 'demo.yaml'), 'utf8')),
    path.join(PROJECT_ROOT, 'configs'),
  ) as Raw;
  const [port, uiPort] = [await freePort(), await freePort()];
  const firstDataset = Object.entries(demo.datasets as Raw)[0];
  const tiny = deepMerge(demo, {
    run_name: 'tiny',
    paths: { results_dir: path.join(dir, 'results') },
    corpus: { max_sentences: 300 },
    export: { shard_size: 2, query_batch_size: 4, checkpoint_every: 2 },
    infer: { local: { max_tokens: 12, threads: 1, context_size: 1024 } },
    analysis: { bootstrap_iterations: 50 },
    temporal: {
      address: `127.0.0.1:${port}`,
      ui_port: uiPort,
      db_file: path.join(dir, 'temporal', 'temporal.db'),
      queues: { cpu: `tiny-cpu-${port}`, gpu: `tiny-gpu-${port}` },
    },
  });
  tiny.datasets = Object.fromEntries([firstDataset]);
  const config = parseConfig(deepMerge(tiny, overrides), 'tiny-study', { env: {} });
  return demoDataFallback(config).config;
}

export interface TinyStudy {
  config: Config;
  client: Client;
  stop(): Promise<void>;
}

/** Start the study's own dev server, a client and in-process workers for both queues. */
export async function startTinyStudy(config: Config): Promise<TinyStudy> {
  await startServer(config);
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const { workers, connection: workerConnection } = await createWorkers({
    config,
    queues: [config.temporal.queues.cpu, config.temporal.queues.gpu],
  });
  const running = workers.map((w) => w.run());
  return { config, client, stop: () => stopTinyStudy(config, connection, workers, running, workerConnection) };
}

async function stopTinyStudy(
  config: Config,
  connection: Connection,
  workers: Worker[],
  running: Promise<void>[],
  workerConnection: NativeConnection,
): Promise<void> {
  workers.forEach((w) => w.shutdown());
  await Promise.allSettled(running);
  await workerConnection.close();
  await connection.close();
  await stopServer(config);
}

/** The whole study (build → export → infer → analyze), or the `stages` given, on `limit` samples; resolves with its result. */
export async function runTinyStudy(study: TinyStudy, limit = 6, stages?: Phase5Input['stages']): Promise<Phase5Result> {
  const { config } = study;
  const input: Phase5Input = { run: config.run_name, config, options: { limit }, ...(stages ? { stages } : {}) };
  return study.client.workflow.execute(phase5Workflow, {
    taskQueue: config.temporal.queues.cpu,
    workflowId: runWorkflowId(config.run_name),
    args: [input],
  });
}
