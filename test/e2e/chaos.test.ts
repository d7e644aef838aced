/**
 * Chaos: one `phase5 infer` of two arms on simulated GPU boxes (test/helpers/sim-llm-server.ts) survives, in one
 * run, a worker killed (kill -9, then restarted), the Temporal dev server restarted (same db file), one box's
 * endpoint down for 30 s, and a worker without the API key beside the good ones — and writes byte-identical
 * outputs to a clean run (`latency_ms`, a measured duration, zeroed). Each fault reaches the CLI while it happens:
 * the progress line's retry note names the killed worker's heartbeat timeout, the outage and the missing key, and
 * the server's absence is said in one line.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../../src/config/schema';
import { startServer, stopServer } from '../../src/temporal/server';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import {
  ownServer,
  partLines,
  pollerCount,
  spawnPhase5,
  startE2eServer,
  stopE2eServer,
  waitFor,
  withoutLatency,
  writeInferenceInput,
} from './harness';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

const KEY = 'PHASE5_CHAOS_KEY';
const LINES = 240;
const OUTAGE_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('chaos: a killed worker, a server restart, a 30 s endpoint outage and a worker without the key, in one run', function () {
  this.timeout(600000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
  const configFile = path.join(dir, 'config.yaml');
  let config: Config;
  let client: Client;
  let connection: Connection;
  const sims: SimLlmServer[] = [];
  const workers: WorkerProcess[] = [];

  /** A worker whose GPU box is `sim`, with the API key unless `withKey` is false. */
  function startWorker(queues: string[], sim: SimLlmServer, withKey = true): WorkerProcess {
    const env = { PHASE5_OPENAI_BASE_URL: sim.url, ...(withKey ? { [KEY]: 'sim-key' } : {}) };
    const w = startWorkerProcess(configFile, { queues, env, without: withKey ? [] : [KEY] });
    workers.push(w);
    return w;
  }

  const pollers = () => pollerCount(client, config.temporal.queues.gpu);

  /** `phase5 infer` into results dir `name`, its stderr lines collected as they come. */
  function infer(name: string): { done: Promise<number | null>; stderr: string[]; outputs: string[] } {
    const results = path.join(dir, name);
    const rows = Array.from({ length: LINES }, (_, i) => ({
      sample_id: `s${String(i).padStart(3, '0')}`,
      dataset: 'lines',
      ocr_text: `قال أبو عثمان ىـ ${i}`,
      gt_text: `قال أبو عثمان ي ${i}`,
      prompt_type: 'rag',
      prompt_version: 'p5v1',
      retrieval_context: 'نصوص مرجعية صحيحة:\n1. قال أبو عثمان',
      retrieved_k: 1,
      retrieval_scores: [0.9],
      retrieval_sources: [],
    }));
    writeInferenceInput(results, rows);
    const stderr: string[] = [];
    const child = spawnPhase5(['--config', configFile, '--results-dir', results, 'infer'], {
      ...process.env,
      PHASE5_LOG_LEVEL: 'warn',
      CI: '1',
      [KEY]: 'sim-key',
    });
    let buf = '';
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop()!;
      stderr.push(...parts);
    });
    const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    return { done, stderr, outputs: ['rag', 'zero_shot'].map((arm) => path.join(results, 'arms', arm, 'corrections.jsonl')) };
  }

  before(async () => {
    for (let i = 0; i < 2; i++) sims.push(await startSimLlmServer({ baseMs: 250, concurrency: 2 }));
    writeFileSync(path.join(dir, 'lines.jsonl'), JSON.stringify({ sample_id: 's', ocr_text: 'x', gt_text: 'x' }) + '\n');
    const raw = {
      run_name: 'chaos',
      paths: { results_dir: path.join(dir, 'results') },
      datasets: { lines: { type: 'jsonl', path: path.join(dir, 'lines.jsonl') } },
      infer: {
        backend: 'openai',
        arms: ['rag', 'zero_shot'],
        shard_size: 8,
        outage_budget: '5m',
        openai: { base_url: 'http://127.0.0.1:9/v1', model: 'sim', api_key_env: KEY, concurrency: 2, max_retries: 1, timeout_s: 5 },
      },
      temporal: {
        ...(await ownServer(dir, 'chaos')),
        concurrency: { cpu: 2, gpu: 2 },
        max_parallel_activities: 6,
        heartbeat_timeout: '4s',
        stages: {
          infer: {
            queue: 'gpu',
            start_to_close: '10m',
            // A retry waits ≥ 3 s, so a retrying activity stays pending across several of the CLI's 1 s polls.
            retry: { maximum_attempts: 0, initial_interval: '3s', backoff_coefficient: 2, maximum_interval: '5s' },
          },
        },
      },
    };
    ({ config, connection, client } = await startE2eServer(configFile, raw));
  });

  after(async () => {
    await stopE2eServer(
      workers.map((w) => w.child),
      connection,
      config,
    );
    for (const s of sims) await s.close();
  });

  it('completes with the clean run’s bytes, each fault shown by the CLI as it happened', async () => {
    const { cpu, gpu } = config.temporal.queues;
    startWorker([cpu, gpu], sims[0]);
    let victim = startWorker([gpu], sims[1]);
    await waitFor('two workers polling', async () => (await pollers()) >= 2, 180_000, 200);
    const clean = infer('clean');
    expect(await clean.done, clean.stderr.join('\n')).to.equal(0);

    const chaos = infer('chaos');
    const t0 = Date.now();
    await waitFor('the first lines', () => partLines(chaos.outputs[0]) + partLines(chaos.outputs[1]) >= 8, 120_000, 200);
    // The progress line's retry note names one retrying activity, so each fault is started once the CLI has shown
    // the one before it (all in the same run).
    const shown = (what: string, re: RegExp) => waitFor(`${what} in the CLI`, () => re.test(chaos.stderr.join('\n')), 60_000, 200);
    // 1. kill -9 a worker mid-shard, and start it again once the CLI has shown its shard's heartbeat timeout.
    victim.child.kill('SIGKILL');
    await shown('the killed worker', /retrying \(attempt \d+\): .*[Hh]eartbeat/);
    victim = startWorker([gpu], sims[1]);
    // 2. a worker without the key joins.
    startWorker([gpu], sims[1], false);
    await shown(
      'the worker without the key',
      new RegExp(`retrying \\(attempt \\d+\\): worker \\d+@\\S+: environment variable ${KEY} is not set`),
    );
    // That worker now pauses its queue for 20 s; its failed shard is retried elsewhere (≥ 3 s) and done, so no key
    // failure is pending while the outage below starts.
    await sleep(8000);
    // 3. the first worker's box down for 30 s …
    await sims[0].stop();
    const outage = sleep(OUTAGE_MS).then(() => sims[0].start());
    // 4. … and the Temporal server restarted during it, while lines are still left.
    await sleep(2000);
    expect(await stopServer(config)).to.equal(true);
    await sleep(2000);
    await startServer(config);
    await outage;
    const code = await chaos.done;
    const log = chaos.stderr.join('\n');
    console.log(
      `    chaos run: ${((Date.now() - t0) / 1000).toFixed(0)} s after the first lines; CLI lines:\n${chaos.stderr.map((l) => `      ${l}`).join('\n')}`,
    );
    expect(code, log).to.equal(0);
    for (const [i, out] of chaos.outputs.entries()) expect(withoutLatency(out), out).to.equal(withoutLatency(clean.outputs[i]));
    expect(log, 'the killed worker').to.match(/retrying \(attempt \d+\): .*[Hh]eartbeat/);
    expect(log, 'the endpoint outage').to.match(/retrying \(attempt \d+\): .*not serving/);
    expect(log, 'the worker without the key').to.match(
      new RegExp(`retrying \\(attempt \\d+\\): worker \\d+@\\S+: environment variable ${KEY} is not set`),
    );
    expect(log, 'the server restart').to.match(/^Temporal does not answer — waiting for it/m);
  });
});
