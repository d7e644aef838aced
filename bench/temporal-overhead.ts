/**
 * What does running the export stage as a Temporal workflow cost, against calling the same activity
 * functions directly?
 *
 *   npx tsx bench/temporal-overhead.ts [--model minilm|e5] [--sentences 2000] [--limit N] [--reps 2]
 *                                      [--shard-size N] [--concurrency 1]
 *
 * 1. Builds (once, reused while its settings match) a small corpus + index from the shared OpenITI slice in
 *    data/cache/bench/temporal-overhead-<model>-<sentences>/ with buildCorpus/buildIndex.
 * 2. Starts a real local Temporal server (TestWorkflowEnvironment.createLocal, the CLI that setup installed)
 *    and one Worker on a unique queue with the real activities and the real workflow bundle.
 * 3. Exports every OCR_GS line of the five books (5,092; `--limit` caps lines per book) with the same index:
 *    (a) `exportWorkflow` on that server and (b) planExport → exportShard per shard → mergeExport called
 *    directly, in plan order. Each run writes into a fresh results dir; the sides alternate (W D, D W, …)
 *    after an untimed warm-up of both (model + index load, JIT, workflow bundle/worker caches).
 * 4. Prints wall time, lines/s, overhead % (min and median) and checks that every run's
 *    inference_input.jsonl is byte-identical. On a shared machine wall time is noisy, so each run also
 *    records the CPU time of this process (activities + the SDK's core threads), of the Temporal server
 *    process, and how busy the whole machine was: the CPU overhead is the steadier figure.
 *
 * Activity concurrency on the worker defaults to 1 so both sides run the shards one after another (the same
 * work; only the orchestration differs). `--concurrency 2` shows the default worker setting instead.
 * Speed targets (≤ 5 % overhead) are printed, never asserted.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Before the project's modules load: their loggers read the level at import time.
process.env.PHASE5_LOG_LEVEL ??= 'warn';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = process.env.SHARED_DATA ?? path.resolve(REPO, '..', 'shared', 'data');
const OPENITI = path.join(SHARED, 'openiti');
const OCR_GS = path.join(SHARED, 'ocr-gs');
const BOOKS = ['IbnAthir.Kamil', 'IbnFaqihHamadhani.Buldan', 'IbnQutayba.Adab', 'Jahiz.Hayawan', 'Yacqubi.Tarikh'];

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const MODEL = arg('--model', 'minilm');
const SENTENCES = Number(arg('--sentences', '2000'));
const LIMIT = process.argv.includes('--limit') ? Number(arg('--limit', '0')) : undefined;
const REPS = Math.max(2, Number(arg('--reps', '2')));
const SHARD_SIZE = process.argv.includes('--shard-size') ? Number(arg('--shard-size', '2000')) : undefined;
const CONCURRENCY = Number(arg('--concurrency', '1'));

const MODELS: Record<string, { id: string; dir: string; query_prefix: string; passage_prefix: string }> = {
  minilm: { id: 'sentence-transformers/all-MiniLM-L6-v2', dir: 'models/all-MiniLM-L6-v2', query_prefix: '', passage_prefix: '' },
  e5: { id: 'intfloat/multilingual-e5-small', dir: 'models/multilingual-e5-small', query_prefix: 'query: ', passage_prefix: 'passage: ' },
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(2)} %`;

// ---- CPU accounting from /proc (Linux); zeros elsewhere
const CLK_TCK = 100;
function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK; // utime + stime
  } catch {
    return 0;
  }
}
/** The Temporal dev server that createLocal started: our child process named temporal. */
function temporalServerPid(): number | null {
  if (!existsSync('/proc')) return null;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === process.pid && comm.startsWith('temporal')) return Number(d);
  }
  return null;
}
/** [busy, total] jiffies of the whole machine. */
function machineJiffies(): [number, number] {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3] + (f[4] ?? 0);
    const total = f.reduce((a, b) => a + b, 0);
    return [total - idle, total];
  } catch {
    return [0, 1];
  }
}

type StageInput = import('../workflows/types').StageInput;
type ModelSpec = (typeof MODELS)[string];
type Queues = { cpu: string; gpu: string };
type Side = 'workflow' | 'direct';
type ExportSides = Record<Side, (input: StageInput) => Promise<number>>;
interface Sample {
  wall: number;
  cpu: number;
  server: number;
  busy: number;
}
interface Measurements {
  samples: Record<Side, Sample[]>;
  hashes: Map<string, string[]>;
  lines: number;
  shards: number;
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const outputFile = (input: StageInput) => path.join(input.config.paths.results_dir, 'arms', 'rag', 'inference_input.jsonl');

/** The chosen model, or null (after saying why) when the shared data is absent; throws on a bad or missing model. */
function checkSetup(): ModelSpec | null {
  for (const dir of [OPENITI, OCR_GS]) {
    if (!existsSync(dir)) {
      console.log(`shared data not found at ${dir} (set SHARED_DATA) — nothing to measure`);
      return null;
    }
  }
  const model = MODELS[MODEL];
  if (!model) throw new Error(`--model must be one of ${Object.keys(MODELS).join(', ')}`);
  if (!existsSync(path.join(REPO, model.dir, 'tokenizer.json'))) throw new Error(`model ${model.dir} not found: run npm run setup`);
  return model;
}

/** The project's modules load only now, after PHASE5_LOG_LEVEL is set. */
async function loadModules() {
  const { parseConfig } = await import('../src/config/load');
  const { stagePaths } = await import('../src/stages/build/build');
  const { createStageCalls } = await import('../test/helpers/stage-calls');
  const activities = createStageCalls();
  const { buildCorpus, buildIndex, planExport, exportShard, mergeExport } = activities;
  const { workflowBundle } = await import('../bin/cli/worker-runtime');
  const { createLocalEnv } = await import('../test/helpers/temporal');
  const { Worker } = await import('@temporalio/worker');
  const { sha256File } = await import('../src/util/hash');
  return {
    parseConfig,
    buildCorpus,
    buildIndex,
    stagePaths,
    planExport,
    exportShard,
    mergeExport,
    activities,
    workflowBundle,
    createLocalEnv,
    Worker,
    sha256File,
  };
}
type Modules = Awaited<ReturnType<typeof loadModules>>;
type ConfigFor = (resultsDir: string) => ReturnType<Modules['parseConfig']>;

function configFactory(mods: Modules, model: ModelSpec, queues: Queues): ConfigFor {
  return (resultsDir) =>
    mods.parseConfig(
      {
        paths: { results_dir: resultsDir },
        data: { openiti_root: OPENITI },
        corpus: { max_sentences: SENTENCES },
        ...(SHARD_SIZE ? { export: { shard_size: SHARD_SIZE } } : {}),
        rag: {
          embedding_model: model.id,
          embedding: { model_dir: model.dir, query_prefix: model.query_prefix, passage_prefix: model.passage_prefix },
        },
        datasets: Object.fromEntries(BOOKS.map((b) => [`OCR_GS-${b}`, { type: 'paired_dir', path: path.join(OCR_GS, `book_${b}`) }])),
        temporal: { queues, concurrency: { cpu: CONCURRENCY, gpu: 1 } },
      },
      'bench/temporal-overhead',
      { env: {} },
    );
}

async function main(): Promise<void> {
  const model = checkSetup();
  if (!model) return;
  const mods = await loadModules();
  const tag = `${process.pid}-${Date.now()}`;
  const queues = { cpu: `bench-overhead-cpu-${tag}`, gpu: `bench-overhead-gpu-${tag}` };
  const configFor = configFactory(mods, model, queues);
  const { vectors, paths } = await buildSharedIndex(mods, configFor);
  const { env, worker, running } = await startTemporal(mods, queues);

  const scratch = mkdtempSync(path.join(os.tmpdir(), 'temporal-overhead-'));
  let runNo = 0;
  const freshInput = (limit: number | undefined): StageInput => ({
    run: `bench-${tag}-${runNo}`,
    config: configFor(path.join(scratch, `run-${runNo++}`)),
    options: { corpusPath: paths.corpus, indexPath: paths.index, limit },
    force: false,
  });
  const sides = exportSides(mods, env, queues);

  try {
    await warmUp(sides, freshInput);
    const m = await measure(mods, sides, freshInput);
    printSummary(m, vectors, configFor('x').export.shard_size);
  } finally {
    worker.shutdown();
    await running;
    await env.teardown();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** 1. The shared index (built once; buildCorpus/buildIndex reuse it while the settings match). */
async function buildSharedIndex(mods: Modules, configFor: ConfigFor) {
  const indexDir = path.join(REPO, 'data', 'cache', 'bench', `temporal-overhead-${MODEL}-${SENTENCES}`);
  const buildInput: StageInput = { run: 'bench', config: configFor(indexDir), options: {}, force: false };
  const t = performance.now();
  const corpus = await mods.buildCorpus(buildInput);
  const index = await mods.buildIndex(buildInput);
  const paths = mods.stagePaths(buildInput.config, {});
  console.log(
    `index: ${index.vectors} sentences of OpenITI (${corpus.reused ? 'reused' : 'built'}), ${index.model} (${index.dims} d, ${index.indexType}), ` +
      `${seconds(t)} — ${paths.index}`,
  );
  return { vectors: index.vectors, paths };
}

/** 2. Temporal server + worker with the real activities and workflow bundle. */
async function startTemporal(mods: Modules, queues: Queues) {
  const t = performance.now();
  const env = await mods.createLocalEnv();
  const bundle = await mods.workflowBundle();
  const worker = await mods.Worker.create({
    connection: env.nativeConnection,
    taskQueue: queues.cpu,
    workflowBundle: bundle,
    activities: mods.activities,
    maxConcurrentActivityTaskExecutions: CONCURRENCY,
  });
  const running = worker.run();
  console.log(`temporal: local server + worker ready in ${seconds(t)} (not counted below)`);
  return { env, worker, running };
}

/** The same export two ways: the workflow on the server, or the activities called in plan order. */
function exportSides(mods: Modules, env: Awaited<ReturnType<Modules['createLocalEnv']>>, queues: Queues): ExportSides {
  async function direct(input: StageInput): Promise<number> {
    const plan = await mods.planExport(input);
    for (const shard of plan.datasets.flatMap((d) => d.shards)) await mods.exportShard({ input, shard });
    return (await mods.mergeExport({ input, plan })).records;
  }
  async function viaWorkflow(input: StageInput): Promise<number> {
    const r = (await env.client.workflow.execute('exportWorkflow', {
      taskQueue: queues.cpu,
      workflowId: `phase5-${input.run}-export`,
      args: [input],
    })) as { merged: { records: number } };
    return r.merged.records;
  }
  return { workflow: viaWorkflow, direct };
}

/** 3a. Untimed warm-up of both paths (model + index load, worker/workflow caches). */
async function warmUp(sides: ExportSides, freshInput: (limit: number | undefined) => StageInput): Promise<void> {
  const t = performance.now();
  for (const side of ['direct', 'workflow'] as Side[]) await sides[side](freshInput(50));
  console.log(`warm-up (50 lines per book on each side): ${seconds(t)}`);
}

/** 3b. REPS timed runs per side, alternating which goes first; one table row per run. */
async function measure(mods: Modules, sides: ExportSides, freshInput: (limit: number | undefined) => StageInput): Promise<Measurements> {
  const serverPid = temporalServerPid();
  const m: Measurements = { samples: { workflow: [], direct: [] }, hashes: new Map(), lines: 0, shards: 0 };
  console.log(
    `\n| run | side | lines | shards | wall s | lines/s | CPU s (this process) | CPU s (Temporal server) | machine busy |` +
      `\n|---:|---|---:|---:|---:|---:|---:|---:|---:|`,
  );
  for (let rep = 0; rep < REPS; rep++) {
    const order: Side[] = rep % 2 === 0 ? ['workflow', 'direct'] : ['direct', 'workflow'];
    for (const side of order) {
      const input = freshInput(LIMIT);
      const { n, sample } = await timedRun(() => sides[side](input), serverPid);
      m.samples[side].push(sample);
      m.lines = n;
      m.shards = JSON.parse(readFileSync(path.join(path.dirname(realpathSync(outputFile(input))), 'plan.json'), 'utf8')).datasets.reduce(
        (acc: number, d: { shards: unknown[] }) => acc + d.shards.length,
        0,
      );
      const h = await mods.sha256File(outputFile(input));
      m.hashes.set(h, [...(m.hashes.get(h) ?? []), `${side}#${rep + 1}`]);
      console.log(
        `| ${rep + 1} | ${side} | ${n} | ${m.shards} | ${sample.wall.toFixed(2)} | ${(n / sample.wall).toFixed(1)} | ${sample.cpu.toFixed(1)} | ` +
          `${serverPid ? sample.server.toFixed(2) : 'n/a'} | ${(sample.busy * 100).toFixed(0)} % |`,
      );
      rmSync(input.config.paths.results_dir, { recursive: true, force: true });
    }
  }
  return m;
}

/** Wall time, CPU of this process and of the server, and machine busyness over one export. */
async function timedRun(run: () => Promise<number>, serverPid: number | null): Promise<{ n: number; sample: Sample }> {
  const cpu0 = process.cpuUsage();
  const server0 = serverPid ? procCpuSeconds(serverPid) : 0;
  const [busy0, total0] = machineJiffies();
  const t0 = performance.now();
  const n = await run();
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(cpu0);
  const [busy1, total1] = machineJiffies();
  const sample: Sample = {
    wall,
    cpu: (c.user + c.system) / 1e6,
    server: serverPid ? procCpuSeconds(serverPid) - server0 : 0,
    busy: (busy1 - busy0) / Math.max(1, total1 - total0),
  };
  return { n, sample };
}

/** 4. Summary: per-side table, overhead figures, and whether every run wrote the same bytes. */
function printSummary({ samples, hashes, lines, shards }: Measurements, vectors: number, shardSize: number): void {
  console.log(
    `\n## Export of ${lines} OCR_GS lines (${shards} shards of ≤ ${shardSize}), ` +
      `${vectors}-sentence ${MODEL} index, worker concurrency ${CONCURRENCY}, ${REPS} runs per side, ${os.cpus().length} cores, ` +
      `load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' / ')}`,
  );
  console.log(
    '| side | wall min s | wall median s | lines/s (min) | lines/s (median) | CPU median s (process + server) |\n|---|---:|---:|---:|---:|---:|',
  );
  const wall = (side: Side) => samples[side].map((x) => x.wall);
  const cpu = (side: Side) => samples[side].map((x) => x.cpu + x.server);
  for (const side of ['workflow', 'direct'] as Side[]) {
    const xs = wall(side);
    console.log(
      `| ${side} | ${Math.min(...xs).toFixed(2)} | ${median(xs).toFixed(2)} | ${(lines / Math.min(...xs)).toFixed(1)} | ` +
        `${(lines / median(xs)).toFixed(1)} | ${median(cpu(side)).toFixed(1)} |`,
    );
  }
  console.log(
    `\nTemporal overhead, wall time: ${pct(Math.min(...wall('workflow')), Math.min(...wall('direct')))} (min vs min), ` +
      `${pct(median(wall('workflow')), median(wall('direct')))} (median vs median); target ≤ 5 %`,
  );
  console.log(
    `Temporal overhead, CPU time (this process + server): ${pct(median(cpu('workflow')), median(cpu('direct')))} (median vs median)`,
  );
  console.log(
    hashes.size === 1
      ? `inference_input.jsonl: byte-identical across all ${2 * REPS} runs (sha256 ${[...hashes.keys()][0].slice(0, 16)}…)`
      : `inference_input.jsonl DIFFERS between runs: ${[...hashes].map(([h, r]) => `${h.slice(0, 12)}: ${r.join(', ')}`).join('; ')}`,
  );
  if (hashes.size !== 1) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
