/**
 * Does one worker with the default config keep an LLM box at its peak? (not a timed test)
 *
 * Simulated boxes with continuous batching (test/helpers/sim-llm-server.ts with `knee`: latency flat at `base`
 * up to `knee` requests in flight, then growing with them; peak = knee / base lines/s) and the infer stage's
 * sharded path driven the way a worker drives it: `temporal.concurrency.gpu` shard slots, each running
 * `runShard` (src/stages/infer/shards.ts) through one shared backend per worker (activities/infer.ts), with
 * `--gap-ms` between a shard's end and the next shard's start for the activity round trip through Temporal
 * (no server here: the bench measures the client against the box). Lines are synthetic zero-shot records.
 *
 *   npx tsx bench/infer-saturation.ts [--json] [--peak 64] [--min-base-ms 500] [--gap-ms 50]
 *
 * Boxes: knee latency = knee / `--peak` s but at least `--min-base-ms` (knee 8: 500 ms, peak 16 lines/s; knee 64:
 * 1 s, 64 lines/s; knee 256: 4 s, 64 lines/s), so the bench's own CPU stays small on a shared 2-core machine
 * and a late timer is small beside a request's latency.
 * Per box: the default config (`infer.openai`: adaptive limit up to `concurrency`; shard_size; gpu slots).
 * `achieved_lines_per_s` is the steady rate, answers between the 40th and 90th percentile of the run over the
 * time between them (the limiter's ramp is once per worker process and endpoint, negligible at study scale);
 * `run_lines_per_s` the whole run. Then two workers (each its own limiter) share one knee-64 box: its median
 * and 90th-percentile latency over the steady span beside the knee latency. Then the previous defaults
 * (8 requests per backend, fixed; one shard per worker) on the knee-64 box, whose outputs must equal the
 * adaptive run's for the same lines (latency_ms zeroed). Reference: the box's peak, knee / base.
 */
import './quiet-logs';
import { existsSync, mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { createBackend } from '../src/llm';
import { EndpointLimiter } from '../src/llm/endpoint-limiter';
import { optionsFrom, type OpenBackend } from '../src/stages/infer/infer';
import { mergeArm, planInfer, runShard, type ArmPlan, type ShardRef } from '../src/stages/infer/shards';
import { sharedBackends } from '../activities/infer';
import { startSimLlmServer, type SimLlmServer } from '../test/helpers/sim-llm-server';

interface Args {
  json: boolean;
  /** Most lines/s a box may answer (its base latency is knee / peak, at least `minBaseMs`): bounds the CPU the bench needs. */
  peak: number;
  minBaseMs: number;
  gapMs: number;
  /** Overrides `temporal.concurrency.gpu` of the default config (to compare settings). */
  gpu?: number;
  knees: number[];
  /** Print each worker's limiter every 0.5 s. */
  trace: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { json: false, peak: 64, minBaseMs: 500, gapMs: 50, knees: [8, 64, 256], trace: false };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--json') a.json = true;
    else if (argv[i] === '--peak') ((a.peak = Number(v)), i++);
    else if (argv[i] === '--min-base-ms') ((a.minBaseMs = Number(v)), i++);
    else if (argv[i] === '--gap-ms') ((a.gapMs = Number(v)), i++);
    else if (argv[i] === '--gpu') ((a.gpu = Number(v)), i++);
    else if (argv[i] === '--knees') ((a.knees = v.split(',').map(Number)), i++);
    else if (argv[i] === '--trace') a.trace = true;
    else
      throw new Error(
        `unknown flag ${argv[i]} (--json --peak LINES_PER_S --min-base-ms MS --gap-ms MS --gpu SLOTS --knees 8,64,256 --trace)`,
      );
  }
  return a;
}

/** Synthetic zero-shot records: Arabic-looking lines of 30–70 characters, deterministic. */
function inputRows(n: number): string[] {
  const words = ['قال', 'أبو', 'عثمان', 'فـي', 'كتابه', 'على', 'الناس', 'من', 'كان', 'إلى', 'بن', 'عبد', 'الله'];
  return Array.from({ length: n }, (_, i) => {
    const text = Array.from({ length: 6 + (i % 8) }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
    return JSON.stringify({
      sample_id: `s${String(i).padStart(6, '0')}`,
      dataset: 'SYN',
      ocr_text: text,
      gt_text: text,
      prompt_type: 'zero_shot',
      prompt_version: 'v1',
      retrieval_context: '',
      retrieved_k: 0,
      retrieval_scores: [],
    });
  });
}

function configFor(dir: string, url: string, openai: Record<string, unknown> = {}, gpu?: number): Config {
  const raw = {
    run_name: 'saturation',
    paths: { results_dir: dir },
    infer: { backend: 'openai', arms: ['zero_shot'], openai: { base_url: url, model: 'sim', ...openai } },
    ...(gpu ? { temporal: { concurrency: { gpu } } } : {}),
  };
  return parseConfig(raw, '<bench>', { env: {} });
}

/** One worker: `slots` shard lanes over the shared shard queue, one backend (and limiter) per worker. */
async function runWorker(config: Config, queue: ShardRef[], arm: ArmPlan, gapMs: number, traced: boolean): Promise<void> {
  const options = optionsFrom(config, {});
  const limiter = new EndpointLimiter({ max: config.infer.openai.concurrency });
  const open: OpenBackend = sharedBackends((cfg) => createBackend(cfg.type === 'openai' && cfg.adaptive ? { ...cfg, limiter } : cfg));
  const trace = traced
    ? setInterval(() => {
        const l = limiter.load();
        console.error(
          `limit ${l.limit} inflight ${l.inFlight} queued ${l.queued} med ${Math.round(l.medianLatencyMs ?? 0)} noload ${Math.round(l.noLoadLatencyMs ?? 0)}`,
        );
      }, 500)
    : null;
  const lane = async (): Promise<void> => {
    for (let shard = queue.shift(); shard; shard = queue.shift()) {
      await runShard(options, arm, shard, {}, open);
      await new Promise((r) => setTimeout(r, gapMs));
    }
  };
  await Promise.all(Array.from({ length: config.temporal.concurrency.gpu }, lane));
  if (trace) clearInterval(trace);
}

interface RunResult {
  output: string;
  seconds: number;
  runRate: number;
  steadyRate: number;
  latency: { median: number; p90: number };
}

async function runStage(
  dir: string,
  configsIn: (dir: string) => Config[],
  lines: number,
  sim: SimLlmServer,
  gapMs: number,
  trace = false,
): Promise<RunResult> {
  const configs = configsIn(dir);
  rmSync(dir, { recursive: true, force: true });
  for (const arm of ['rag', 'zero_shot']) {
    mkdirSync(path.join(dir, 'arms', arm), { recursive: true });
    writeFileSync(path.join(dir, 'arms', arm, 'inference_input.jsonl'), inputRows(lines).join('\n') + '\n');
  }
  const options = optionsFrom(configs[0], {});
  const [arm] = await planInfer(options);
  const queue: ShardRef[] = arm.plan.datasets.flatMap((d) =>
    Array.from({ length: Math.ceil(d.lines / arm.shardSize) }, (_, index) => ({ dataset: d.dataset, index })),
  );
  const before = sim.answers().length;
  const t0 = performance.now();
  await Promise.all(configs.map((c) => runWorker(c, queue, arm, gapMs, trace)));
  const seconds = (performance.now() - t0) / 1000;
  await mergeArm(options, arm);
  const answers = sim.answers().slice(before);
  const [a, b] = [answers[Math.floor(answers.length * 0.4)], answers[Math.floor(answers.length * 0.9)]];
  const steady = answers
    .filter((x) => x.atMs >= a.atMs && x.atMs <= b.atMs)
    .map((x) => x.latencyMs)
    .sort((x, y) => x - y);
  const q = (p: number) => steady[Math.min(steady.length - 1, Math.floor(steady.length * p))];
  return {
    output: arm.output,
    seconds,
    runRate: lines / seconds,
    steadyRate: (Math.floor(answers.length * 0.9) - Math.floor(answers.length * 0.4)) / ((b.atMs - a.atMs) / 1000),
    latency: { median: q(0.5), p90: q(0.9) },
  };
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const zeroLatency = (file: string, n: number) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, n)
    .map((l) => l.replace(/"latency_ms":\d+/, '"latency_ms":0'))
    .join('\n');

// long: the bench's steps in the order it prints them (boxes, two workers, previous defaults, table)
async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  process.env.OPENAI_API_KEY ??= 'sim';
  const root = mkdtempSync(path.join(os.tmpdir(), 'infer-saturation-'));
  const say = (line: string) => !a.json && console.error(line);
  // Lines: the limiter's ramp plus a steady span of several round trips at the box's peak.
  const baseFor = (knee: number) => Math.max(a.minBaseMs, (knee / a.peak) * 1000);
  const plan = a.knees.map((knee) => ({ knee, lines: Math.max(320, knee * (knee > 64 ? 12 : 24)) }));
  const boxes = [];
  try {
    let defaults: Config | null = null;
    for (const { knee, lines } of plan) {
      const baseMs = baseFor(knee);
      const peak = (knee / baseMs) * 1000;
      const sim = await startSimLlmServer({ knee, baseMs });
      try {
        defaults = configFor(root, sim.url, {}, a.gpu);
        const r = await runStage(path.join(root, `k${knee}`), (dir) => [configFor(dir, sim.url, {}, a.gpu)], lines, sim, a.gapMs, a.trace);
        boxes.push({
          knee,
          base_ms: r1(baseMs),
          lines,
          peak_lines_per_s: r1(peak),
          achieved_lines_per_s: r1(r.steadyRate),
          percent_of_peak: r1((100 * r.steadyRate) / peak),
          run_lines_per_s: r1(r.runRate),
          seconds: r1(r.seconds),
          median_latency_ms: Math.round(r.latency.median),
        });
        say(
          `knee ${knee}: ${r1(r.steadyRate)} of ${r1(peak)} lines/s (${r1((100 * r.steadyRate) / peak)} %), whole run ${r1(r.runRate)} lines/s in ${r1(r.seconds)} s; median latency ${Math.round(r.latency.median)} ms (knee latency ${Math.round(baseMs)})`,
        );
      } finally {
        await sim.close();
      }
    }
    const baseMs = baseFor(64);
    const peak64 = (64 / baseMs) * 1000;
    const sim = await startSimLlmServer({ knee: 64, baseMs });
    let two, before, identical;
    try {
      const t = await runStage(
        path.join(root, 'two'),
        (dir) => [configFor(dir, sim.url, {}, a.gpu), configFor(dir, sim.url, {}, a.gpu)],
        1024,
        sim,
        a.gapMs,
        a.trace,
      );
      two = {
        knee: 64,
        workers: 2,
        achieved_lines_per_s: r1(t.steadyRate),
        median_latency_ms: Math.round(t.latency.median),
        p90_latency_ms: Math.round(t.latency.p90),
        knee_latency_ms: Math.round(baseMs),
        latency_ratio: r1(t.latency.median / baseMs),
        p90_latency_ratio: r1(t.latency.p90 / baseMs),
      };
      say(
        `two workers, knee 64: ${two.achieved_lines_per_s} lines/s, median latency ${two.median_latency_ms} ms = ${two.latency_ratio}× the knee latency (p90 ${two.p90_latency_ratio}×)`,
      );
      const beforeLines = 96;
      const b = await runStage(
        path.join(root, 'before'),
        (dir) => [configFor(dir, sim.url, { concurrency: 8, adaptive_concurrency: false }, 1)],
        beforeLines,
        sim,
        a.gapMs,
      );
      before = {
        knee: 64,
        config: 'infer.openai.concurrency 8 (fixed), temporal.concurrency.gpu 1',
        achieved_lines_per_s: r1(b.steadyRate),
        percent_of_peak: r1((100 * b.steadyRate) / peak64),
        run_lines_per_s: r1(b.runRate),
      };
      const adaptive64 = path.join(root, 'k64', 'arms', 'zero_shot', 'corrections.jsonl');
      identical = existsSync(adaptive64) ? zeroLatency(b.output, beforeLines) === zeroLatency(adaptive64, beforeLines) : null;
      say(
        `previous defaults, knee 64: ${before.achieved_lines_per_s} lines/s (${before.percent_of_peak} % of peak); outputs equal to the adaptive run's: ${identical}`,
      );
    } finally {
      await sim.close();
    }
    const d = defaults as Config;
    const result = {
      defaults: {
        concurrency: d.infer.openai.concurrency,
        adaptive_concurrency: d.infer.openai.adaptive_concurrency,
        shard_size: d.infer.shard_size,
        gpu_slots: d.temporal.concurrency.gpu,
        gap_ms: a.gapMs,
      },
      boxes,
      two_workers: two,
      previous_defaults: before,
      outputs_identical: identical,
    };
    if (a.json) console.log(JSON.stringify(result));
    else printTable(result as Result);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

interface Result {
  boxes: {
    knee: number;
    base_ms: number;
    peak_lines_per_s: number;
    achieved_lines_per_s: number;
    percent_of_peak: number;
    run_lines_per_s: number;
    median_latency_ms: number;
  }[];
  two_workers: {
    knee: number;
    achieved_lines_per_s: number;
    median_latency_ms: number;
    p90_latency_ms: number;
    knee_latency_ms: number;
    latency_ratio: number;
    p90_latency_ratio: number;
  };
  previous_defaults: { knee: number; config: string; achieved_lines_per_s: number; percent_of_peak: number };
  outputs_identical: boolean | null;
}

function printTable(r: Result): void {
  console.log('One worker, default config (steady rate: answers between the 40th and 90th percentile of the run):');
  console.log('| knee | knee latency | peak lines/s | achieved lines/s | % of peak | whole run lines/s | median latency |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const b of r.boxes)
    console.log(
      `| ${b.knee} | ${b.base_ms} ms | ${b.peak_lines_per_s} | ${b.achieved_lines_per_s} | ${b.percent_of_peak} % | ${b.run_lines_per_s} | ${b.median_latency_ms} ms |`,
    );
  const t = r.two_workers;
  console.log(
    `Two workers sharing one knee-${t.knee} box: ${t.achieved_lines_per_s} lines/s; median latency ${t.median_latency_ms} ms = ${t.latency_ratio}× the knee latency ${t.knee_latency_ms} ms (p90 ${t.p90_latency_ratio}×; target < 2×)`,
  );
  const p = r.previous_defaults;
  console.log(`Previous defaults (${p.config}), knee ${p.knee}: ${p.achieved_lines_per_s} lines/s = ${p.percent_of_peak} % of peak`);
  console.log(`Outputs of the previous and the adaptive run identical (latency_ms zeroed): ${r.outputs_identical}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
