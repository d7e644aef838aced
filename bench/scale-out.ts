/**
 * Scale-out benchmark (not a timed test): the infer stage of one arm (zero-shot, so no index is needed) on the
 * same real OCR_GS lines with 1, 2, 4… GPU workers. Starts its own Temporal dev server (free ports, its own db),
 * N simulated GPU boxes (test/helpers/sim-llm-server.ts: latency `--latency-ms` per request, `--concurrency`
 * requests at once) and N `phase5 worker --queues <gpu>` processes, each bound to its own box
 * (`PHASE5_OPENAI_BASE_URL`). Timing starts when every worker polls and ends with the workflow's result (plan,
 * shards, merge). Outputs are compared across N with `latency_ms` (a measured duration) zeroed.
 *
 *   npx tsx bench/scale-out.ts --workers 1,2,4 --lines 960 --latency-ms 300 --concurrency 4 [--shard-size 16] [--json]
 *
 * Targets: 2 workers ≥ 1.8× one worker, 4 workers ≥ 3.4×, identical outputs, LLM requests = lines.
 * Pick a latency at which waiting for the LLM dominates (as on a real GPU box); on a 2-core machine 200–400 ms
 * per request with 4 at once keeps the workers' own CPU time small beside it. The boxes serve a fixed number of
 * requests at once, and the workers send exactly `--concurrency` (adaptive_concurrency off), so the figures
 * measure the fan-out alone; bench/infer-saturation.ts measures the adaptive limit against batching boxes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { Client, Connection } from '@temporalio/client';
import { loadConfig, PROJECT_ROOT } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { loadDataset } from '../src/datasets';
import { freePort, startServer, stopServer } from '../src/temporal/server';
import { OCR_GS_ROOT } from '../test/helpers/shared-data';
import { startSimLlmServer, type SimLlmServer } from '../test/helpers/sim-llm-server';

interface Args {
  workers: number[];
  lines: number;
  latencyMs: number;
  concurrency: number;
  shardSize: number;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { workers: [1, 2, 4], lines: 960, latencyMs: 300, concurrency: 4, shardSize: 16, json: false };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--workers') ((a.workers = v.split(',').map(Number)), i++);
    else if (argv[i] === '--lines') ((a.lines = Number(v)), i++);
    else if (argv[i] === '--latency-ms') ((a.latencyMs = Number(v)), i++);
    else if (argv[i] === '--concurrency') ((a.concurrency = Number(v)), i++);
    else if (argv[i] === '--shard-size') ((a.shardSize = Number(v)), i++);
    else if (argv[i] === '--json') a.json = true;
    else throw new Error(`unknown flag ${argv[i]} (--workers 1,2,4 --lines L --latency-ms MS --concurrency C --shard-size S --json)`);
  }
  if (a.workers.some((n) => !(Number.isInteger(n) && n >= 1))) throw new Error('--workers: comma-separated integers ≥ 1');
  return a;
}

/** The first `n` OCR_GS lines (books in name order) as zero-shot inference_input records. */
async function ocrGsRows(n: number): Promise<string[]> {
  const root = OCR_GS_ROOT;
  if (!existsSync(root)) throw new Error(`no OCR_GS data at ${root} (see ../shared/data/README.md; or set SHARED_DATA)`);
  const rows: string[] = [];
  for (const book of [
    'book_IbnAthir.Kamil',
    'book_IbnFaqihHamadhani.Buldan',
    'book_IbnQutayba.Adab',
    'book_Jahiz.Hayawan',
    'book_Yacqubi.Tarikh',
  ]) {
    const ds = await loadDataset({ key: `OCR_GS-${book.slice(5)}`, type: 'paired_dir', path: path.join(root, book) });
    for (const s of ds.samples) {
      if (rows.length >= n) return rows;
      rows.push(
        JSON.stringify({
          sample_id: s.sample_id,
          dataset: s.dataset,
          ocr_text: s.ocr_text,
          gt_text: s.gt_text,
          prompt_type: 'zero_shot',
          prompt_version: 'v1',
          retrieval_context: '',
          retrieved_k: 0,
          retrieval_scores: [],
        }),
      );
    }
  }
  return rows;
}

function workerProcess(configFile: string, queue: string, sim: SimLlmServer): ChildProcess {
  return spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'phase5.js'), '--config', configFile, 'worker', '--queues', queue], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', PHASE5_OPENAI_BASE_URL: sim.url, OPENAI_API_KEY: 'sim' },
    stdio: 'ignore',
  });
}

async function killAll(ps: ChildProcess[]): Promise<void> {
  await Promise.all(
    ps.map((p) => (p.exitCode !== null || p.signalCode !== null ? null : new Promise((r) => (p.once('exit', r), p.kill('SIGTERM'))))),
  );
}

async function pollers(client: Client, queue: string): Promise<number> {
  const res = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: queue }, taskQueueType: 2 });
  return res.pollers?.length ?? 0;
}

interface Run {
  workers: number;
  seconds: number;
  lines_per_s: number;
  requests: number;
  output: string;
}

async function runOnce(
  a: Args,
  n: number,
  base: { dir: string; configFile: string; config: Config; client: Client; rows: string[] },
): Promise<Run> {
  const results = path.join(base.dir, `w${n}`);
  rmSync(results, { recursive: true, force: true });
  for (const arm of ['rag', 'zero_shot']) {
    mkdirSync(path.join(results, 'arms', arm), { recursive: true });
    writeFileSync(path.join(results, 'arms', arm, 'inference_input.jsonl'), base.rows.join('\n') + '\n');
  }
  const queue = base.config.temporal.queues.gpu;
  const sims = await Promise.all(Array.from({ length: n }, () => startSimLlmServer({ baseMs: a.latencyMs, concurrency: a.concurrency })));
  const procs = sims.map((s) => workerProcess(base.configFile, queue, s));
  try {
    for (let t = Date.now(); (await pollers(base.client, queue)) < n;) {
      if (Date.now() - t > 180_000) throw new Error(`only ${await pollers(base.client, queue)} of ${n} workers polling after 3 min`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const config = structuredClone(base.config);
    config.paths.results_dir = results;
    const t0 = performance.now();
    await base.client.workflow.execute('inferWorkflow', {
      taskQueue: queue,
      workflowId: `scale-out-${n}-${Date.now()}`,
      args: [{ run: `w${n}`, config, options: {}, force: false }],
    });
    const seconds = (performance.now() - t0) / 1000;
    const output = path.join(results, 'arms', 'zero_shot', 'corrections.jsonl');
    return { workers: n, seconds, lines_per_s: base.rows.length / seconds, requests: sims.reduce((x, s) => x + s.served(), 0), output };
  } finally {
    await killAll(procs);
    for (const s of sims) await s.close();
  }
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scale-out-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const raw = {
    run_name: 'scale-out',
    paths: { results_dir: dir },
    infer: {
      backend: 'openai',
      arms: ['zero_shot'],
      shard_size: a.shardSize,
      openai: { base_url: 'http://127.0.0.1:9/v1', model: 'sim', concurrency: a.concurrency, adaptive_concurrency: false, max_retries: 1 },
    },
    temporal: {
      address: `127.0.0.1:${port}`,
      ui_port: uiPort,
      db_file: path.join(dir, 'temporal.db'),
      queues: { cpu: `scale-out-cpu-${port}`, gpu: `scale-out-gpu-${port}` },
      // Two shards per worker share its backend (and its `concurrency` cap): while one shard drains, the next
      // already fills the box's free slots, so a shard boundary leaves no idle gap on the GPU.
      concurrency: { cpu: 1, gpu: 2 },
    },
  };
  const configFile = path.join(dir, 'config.yaml');
  writeFileSync(configFile, YAML.stringify(raw));
  const config = loadConfig(configFile, { env: {} }).config;
  const rows = await ocrGsRows(a.lines);
  await startServer(config);
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const runs: Run[] = [];
  try {
    for (const n of a.workers) {
      runs.push(await runOnce(a, n, { dir, configFile, config, client, rows }));
      if (!a.json) console.error(`${n} worker(s): ${runs[runs.length - 1].seconds.toFixed(1)} s`);
    }
  } finally {
    await connection.close();
    await stopServer(config);
  }
  report(a, rows.length, runs);
}

function report(a: Args, lines: number, runs: Run[]): void {
  const norm = (f: string) => readFileSync(f, 'utf8').replace(/"latency_ms":\d+/g, '"latency_ms":0');
  const identical = runs.every((r) => norm(r.output) === norm(runs[0].output));
  const llm_requests = Object.fromEntries(runs.map((r) => [String(r.workers), r.requests]));
  if (a.json) {
    console.log(
      JSON.stringify({
        lines,
        runs: runs.map(({ workers, seconds, lines_per_s }) => ({ workers, seconds: round(seconds), lines_per_s: round(lines_per_s) })),
        identical,
        llm_requests,
      }),
    );
    return;
  }
  const one = runs.find((r) => r.workers === 1) ?? runs[0];
  const shards = Math.ceil(lines / a.shardSize);
  console.log(
    `${lines} OCR_GS lines, one arm (zero-shot), shard_size ${a.shardSize} (${shards} shards); each box: ${a.latencyMs} ms per request, ${a.concurrency} at once`,
  );
  console.log('| workers | seconds | lines/s | speed-up | ideal s | overhead per shard | LLM requests |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of runs) {
    // Every box serves `concurrency` requests per `latency`: the LLM-bound time if the workers never waited on Temporal.
    const ideal = (Math.ceil(lines / (r.workers * a.concurrency)) * a.latencyMs) / 1000;
    const overhead = ((r.seconds - ideal) * 1000 * r.workers) / shards;
    console.log(
      `| ${r.workers} | ${r.seconds.toFixed(1)} | ${r.lines_per_s.toFixed(1)} | ${(one.seconds / r.seconds).toFixed(2)}× | ${ideal.toFixed(1)} | ${overhead.toFixed(0)} ms | ${r.requests} |`,
    );
  }
  console.log(`outputs identical across runs: ${identical}; requests = lines: ${runs.every((r) => r.requests === lines)}`);
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
