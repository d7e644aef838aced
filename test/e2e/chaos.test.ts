/**
 * Chaos: one `phase5 infer` of two arms on simulated GPU boxes (test/helpers/sim-llm-server.ts) survives, in one
 * run, a worker killed (kill -9, then restarted), the Temporal dev server restarted (same db file), one box's
 * endpoint down for 30 s, and a worker without the API key beside the good ones — and writes byte-identical
 * outputs to a clean run (`latency_ms`, a measured duration, zeroed). Each fault reaches the CLI while it happens:
 * the progress line's retry note names the killed worker's heartbeat timeout, the outage and the missing key, and
 * the server's absence is said in one line.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { freePort, startServer, stopServer } from '../../src/temporal/server';
import { REPO_ROOT } from '../helpers/shared-data';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';

const KEY = 'PHASE5_CHAOS_KEY';
const LINES = 240;
const OUTAGE_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const normalized = (file: string) => readFileSync(file, 'utf8').replace(/"latency_ms":\d+/g, '"latency_ms":0');

function partLines(output: string): number {
  const dir = `${output}.parts`;
  if (!existsSync(dir)) return 0;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .reduce((n, f) => n + readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).length, 0);
}

describe('chaos: a killed worker, a server restart, a 30 s endpoint outage and a worker without the key, in one run', function () {
  this.timeout(600000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
  const configFile = path.join(dir, 'config.yaml');
  let config: Config;
  let client: Client;
  let connection: Connection;
  const sims: SimLlmServer[] = [];
  const workers: ChildProcess[] = [];

  function startWorker(queues: string[], sim: SimLlmServer, withKey = true): ChildProcess {
    const env: NodeJS.ProcessEnv = { ...process.env, PHASE5_LOG_LEVEL: 'error', PHASE5_OPENAI_BASE_URL: sim.url };
    if (withKey) env[KEY] = 'sim-key';
    else delete env[KEY];
    const w = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, 'worker', '--queues', queues.join(',')],
      { cwd: REPO_ROOT, env, stdio: 'ignore' },
    );
    workers.push(w);
    return w;
  }

  async function pollers(): Promise<number> {
    const res = await client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: config.temporal.queues.gpu },
      taskQueueType: 2,
    });
    return res.pollers?.length ?? 0;
  }

  async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 180_000): Promise<void> {
    for (const t = Date.now(); Date.now() - t < timeoutMs; await sleep(200)) if (await cond()) return;
    throw new Error(`timed out waiting for ${what}`);
  }

  /** `phase5 infer` into results dir `name`, its stderr lines collected as they come. */
  function infer(name: string): { done: Promise<number | null>; stderr: string[]; outputs: string[] } {
    const results = path.join(dir, name);
    mkdirSync(path.join(results, 'phase5'), { recursive: true });
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
    writeFileSync(path.join(results, 'phase5', 'inference_input.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const stderr: string[] = [];
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, '--results-dir', results, 'infer'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', CI: '1', [KEY]: 'sim-key' },
      },
    );
    let buf = '';
    child.stderr.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop()!;
      stderr.push(...parts);
    });
    const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    return { done, stderr, outputs: ['phase5', 'phase2'].map((p) => path.join(results, p, 'corrections.jsonl')) };
  }

  before(async () => {
    for (let i = 0; i < 2; i++) sims.push(await startSimLlmServer({ baseMs: 250, concurrency: 2 }));
    const [port, uiPort] = [await freePort(), await freePort()];
    writeFileSync(path.join(dir, 'lines.jsonl'), JSON.stringify({ sample_id: 's', ocr_text: 'x', gt_text: 'x' }) + '\n');
    const raw = {
      run_name: 'chaos',
      paths: { results_dir: path.join(dir, 'results') },
      datasets: { lines: { type: 'jsonl', path: path.join(dir, 'lines.jsonl') } },
      infer: {
        backend: 'openai',
        conditions: ['rag', 'zero_shot'],
        shard_size: 8,
        outage_budget: '5m',
        openai: { base_url: 'http://127.0.0.1:9/v1', model: 'sim', api_key_env: KEY, concurrency: 2, max_retries: 1, timeout_s: 5 },
      },
      temporal: {
        address: `127.0.0.1:${port}`,
        ui_port: uiPort,
        db_file: path.join(dir, 'temporal.db'),
        queues: { cpu: `chaos-cpu-${port}`, gpu: `chaos-gpu-${port}` },
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
    writeFileSync(configFile, YAML.stringify(raw));
    config = loadConfig(configFile, { env: {} }).config;
    await startServer(config);
    connection = await Connection.connect({ address: config.temporal.address });
    client = new Client({ connection, namespace: config.temporal.namespace });
  });

  after(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await connection?.close();
    if (config) await stopServer(config);
    for (const s of sims) await s.close();
  });

  it('completes with the clean run’s bytes, each fault shown by the CLI as it happened', async () => {
    const { cpu, gpu } = config.temporal.queues;
    startWorker([cpu, gpu], sims[0]);
    let victim = startWorker([gpu], sims[1]);
    await waitFor('two workers polling', async () => (await pollers()) >= 2);
    const clean = infer('clean');
    expect(await clean.done, clean.stderr.join('\n')).to.equal(0);

    const chaos = infer('chaos');
    const t0 = Date.now();
    await waitFor('the first lines', () => partLines(chaos.outputs[0]) + partLines(chaos.outputs[1]) >= 8, 120_000);
    // The progress line's retry note names one retrying activity, so each fault is started once the CLI has shown
    // the one before it (all in the same run).
    const shown = (what: string, re: RegExp) => waitFor(`${what} in the CLI`, () => re.test(chaos.stderr.join('\n')), 60_000);
    // 1. kill -9 a worker mid-shard, and start it again once the CLI has shown its shard's heartbeat timeout.
    victim.kill('SIGKILL');
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
    for (const [i, out] of chaos.outputs.entries()) expect(normalized(out), out).to.equal(normalized(clean.outputs[i]));
    expect(log, 'the killed worker').to.match(/retrying \(attempt \d+\): .*[Hh]eartbeat/);
    expect(log, 'the endpoint outage').to.match(/retrying \(attempt \d+\): .*not serving/);
    expect(log, 'the worker without the key').to.match(
      new RegExp(`retrying \\(attempt \\d+\\): worker \\d+@\\S+: environment variable ${KEY} is not set`),
    );
    expect(log, 'the server restart').to.match(/^Temporal does not answer — waiting for it/m);
  });
});
