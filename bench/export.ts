/**
 * Export throughput against its reference, the same machine's query-embedding pipeline:
 *
 *   npx tsx bench/export.ts [--model e5|minilm] [--sentences 2000] [--limit N] [--reps 3] [--shard-size N] [--query-batch N]
 *
 * 1. Builds (once, reused while its settings match) a corpus + index from the shared OpenITI slice in
 *    data/cache/bench/export-<model>-<sentences>/.
 * 2. Reference: the encoder the export uses (same options) embeds every OCR line as a query in one call —
 *    what an export could at best reach, since each line needs one query embedding.
 * 3. Ours: the export activities called directly in plan order (planExport → exportShard per shard →
 *    mergeExport; default shard size), into a fresh results dir each time, in one worker process whose
 *    retriever stays open across runs (as a worker's does). Reference and ours alternate, `--reps` times;
 *    the ratio is the median of the per-repetition ratios.
 * 4. Breakdown of one export (median over the repetitions): plan; in the shards, their setup (dataset load, resume
 *    scan, until the first retrieval), retrieval (query embedding + search + options pipeline, timed around the
 *    retriever) and the rest (records as JSON, checkpoints, compaction, done marker); merge; beside them the
 *    one-off retriever open (model + index load, once per worker) and the reference's time for the same lines.
 *    Every run's inference_input.jsonl must be byte-identical.
 * Target (printed, not asserted): export ≥ 90 % of the reference's lines/s.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.PHASE5_LOG_LEVEL ??= 'error';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = process.env.SHARED_DATA ?? path.resolve(REPO, '..', 'shared', 'data');
const OPENITI = path.join(SHARED, 'openiti');
const OCR_GS = path.join(SHARED, 'ocr-gs');
const BOOKS = ['IbnAthir.Kamil', 'IbnFaqihHamadhani.Buldan', 'IbnQutayba.Adab', 'Jahiz.Hayawan', 'Yacqubi.Tarikh'];

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const MODEL = arg('--model', 'e5');
const SENTENCES = Number(arg('--sentences', '2000'));
const LIMIT = process.argv.includes('--limit') ? Number(arg('--limit', '0')) : undefined;
const REPS = Math.max(1, Number(arg('--reps', '3')));
const SHARD_SIZE = process.argv.includes('--shard-size') ? Number(arg('--shard-size', '2000')) : undefined;
const QUERY_BATCH = process.argv.includes('--query-batch') ? Number(arg('--query-batch', '64')) : undefined;

const MODELS: Record<string, { id: string; dir: string; query_prefix: string; passage_prefix: string }> = {
  minilm: { id: 'sentence-transformers/all-MiniLM-L6-v2', dir: 'models/all-MiniLM-L6-v2', query_prefix: '', passage_prefix: '' },
  e5: { id: 'intfloat/multilingual-e5-small', dir: 'models/multilingual-e5-small', query_prefix: 'query: ', passage_prefix: 'passage: ' },
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const since = (t: number) => (performance.now() - t) / 1000;
/** CPU seconds of this process so far, every thread (the session workers too). */
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

type StageInput = import('../workflows/types').StageInput;
type ExportRetriever = import('../src/stages/build/retriever').ExportRetriever;
type Bench = Awaited<ReturnType<typeof setUp>>;

/** Start and end (ms, performance.now) of every retrieveMany call, to split shard time into retrieval and the rest. */
const retrievals: { start: number; end: number }[] = [];

function timedRetriever(r: ExportRetriever): ExportRetriever {
  return {
    retrieveMany: async (queries, k, minScore) => {
      const start = performance.now();
      try {
        return await r.retrieveMany(queries, k, minScore);
      } finally {
        retrievals.push({ start, end: performance.now() });
      }
    },
    formatForPrompt: (chunks, style) => r.formatForPrompt(chunks, style),
    fingerprint: r.fingerprint,
  };
}

/** Modules, the config factory, the (cached) index and the OCR lines; null when the shared data is absent. */
async function setUp() {
  const model = MODELS[MODEL];
  if (!model) throw new Error(`--model must be one of ${Object.keys(MODELS).join(', ')}`);
  const { parseConfig } = await import('../src/config/load');
  const { stagePaths } = await import('../src/stages/build/build');
  const { embedderOptions } = await import('../src/stages/build/retriever');
  const { loadDataset } = await import('../src/datasets');
  const { datasetSpec } = await import('../src/stages/export/export');
  const { Embedder } = await import('../src/embed/embedder');
  const { defaultDeps } = await import('../activities');
  const { createStageCalls } = await import('../test/helpers/stage-calls');
  const deps = defaultDeps();
  const act = createStageCalls({
    ...deps,
    openRetriever: async (config, paths) => timedRetriever(await deps.openRetriever(config, paths)),
  });
  const configFor = (resultsDir: string) =>
    parseConfig(
      {
        paths: { results_dir: resultsDir },
        data: { openiti_root: OPENITI },
        corpus: { max_sentences: SENTENCES },
        export: { ...(SHARD_SIZE ? { shard_size: SHARD_SIZE } : {}), ...(QUERY_BATCH ? { query_batch_size: QUERY_BATCH } : {}) },
        rag: {
          embedding_model: model.id,
          embedding: { model_dir: model.dir, query_prefix: model.query_prefix, passage_prefix: model.passage_prefix },
        },
        datasets: Object.fromEntries(BOOKS.map((b) => [`OCR_GS-${b}`, { type: 'paired_dir', path: path.join(OCR_GS, `book_${b}`) }])),
      },
      'bench/export',
      { env: {} },
    );
  const indexDir = path.join(REPO, 'data', 'cache', 'bench', `export-${MODEL}-${SENTENCES}`);
  const buildInput: StageInput = { run: 'bench', config: configFor(indexDir), options: {}, force: false };
  const t = performance.now();
  await act.buildCorpus(buildInput);
  const index = await act.buildIndex(buildInput);
  const paths = stagePaths(buildInput.config, {});
  console.log(`index: ${index.vectors} sentences (${index.model}, ${index.indexType}) ready in ${since(t).toFixed(1)} s — ${paths.index}`);
  const texts: string[] = [];
  for (const key of Object.keys(buildInput.config.datasets)) {
    const { samples } = await loadDataset(datasetSpec(buildInput.config, key), { limit: LIMIT });
    texts.push(...samples.map((s) => s.ocr_text));
  }
  const reference = await Embedder.load(embedderOptions(buildInput.config));
  return { act, configFor, paths, texts, reference, exportSettings: buildInput.config.export };
}

/** One export in a fresh results dir: wall time, the sha256 of inference_input.jsonl, and its phases. */
async function exportOnce(b: Bench, dir: string) {
  const input: StageInput = {
    run: `bench-${path.basename(dir)}`,
    config: b.configFor(dir),
    options: { corpusPath: b.paths.corpus, indexPath: b.paths.index, limit: LIMIT },
    force: false,
  };
  const t0 = performance.now();
  const plan = await b.act.planExport(input);
  const t1 = performance.now();
  const inShards = { setup: 0, retrieval: 0, rest: 0 };
  for (const shard of plan.datasets.flatMap((d) => d.shards)) {
    retrievals.length = 0;
    const s0 = performance.now();
    await b.act.exportShard({ input, shard });
    const s1 = performance.now();
    const retrieval = retrievals.reduce((a, r) => a + r.end - r.start, 0);
    const setup = retrievals.length ? retrievals[0].start - s0 : 0;
    inShards.setup += setup / 1000;
    inShards.retrieval += retrieval / 1000;
    inShards.rest += (s1 - s0 - setup - retrieval) / 1000;
  }
  const t2 = performance.now();
  await b.act.mergeExport({ input, plan });
  const t3 = performance.now();
  const file = path.join(input.config.paths.results_dir, 'arms', 'rag', 'inference_input.jsonl');
  const phases = { plan: (t1 - t0) / 1000, ...inShards, merge: (t3 - t2) / 1000 };
  return { wall: (t3 - t0) / 1000, sha: createHash('sha256').update(readFileSync(file)).digest('hex'), phases };
}

/** Where an export's time goes (medians over the repetitions), beside the reference's time for the same lines. */
function printBreakdown(runs: Awaited<ReturnType<typeof exportOnce>>['phases'][], reference: number, cold: number): void {
  const rows: [string, number][] = [
    ['plan (read every dataset, plan.json)', median(runs.map((p) => p.plan))],
    ['shards: setup (dataset load, resume scan)', median(runs.map((p) => p.setup))],
    ['shards: retrieval (embed + search + options)', median(runs.map((p) => p.retrieval))],
    ['shards: records (JSON, checkpoints, compaction)', median(runs.map((p) => p.rest))],
    ['merge (inference_input.jsonl)', median(runs.map((p) => p.merge))],
  ];
  const total = rows.reduce((a, [, s]) => a + s, 0);
  console.log(`  breakdown (median of the repetitions; reference: ${reference.toFixed(2)} s for the same lines):`);
  for (const [name, s] of rows)
    console.log(`    ${name.padEnd(50)} ${s.toFixed(2).padStart(7)} s  ${((100 * s) / total).toFixed(1).padStart(5)} %`);
  console.log(`    ${'total'.padEnd(50)} ${total.toFixed(2).padStart(7)} s`);
  console.log(
    `    once per worker, not in the figures above: retriever open (model + index load) within a first run of ${cold.toFixed(1)} s`,
  );
}

async function main(): Promise<void> {
  for (const dir of [OPENITI, OCR_GS]) {
    if (!existsSync(dir)) {
      console.log(`shared data not found at ${dir} (set SHARED_DATA) — nothing to measure`);
      return;
    }
  }
  const b = await setUp();
  const { texts, reference } = b;
  const chars = texts.reduce((a, s) => a + s.length, 0) / texts.length;
  console.log(
    `export of ${texts.length} OCR_GS lines (mean ${chars.toFixed(0)} chars), shard size ${b.exportSettings.shard_size}, query batch ${b.exportSettings.query_batch_size}; ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'bench-export-'));
  let runNo = 0;
  try {
    const t = performance.now();
    const first = await exportOnce(b, path.join(scratch, `run-${runNo++}`)); // opens the worker's retriever: model + index, once per worker
    const cold = since(t);
    await reference.embedQueries(texts.slice(0, 256)); // warm-up of the reference's sessions
    const ours: number[] = [];
    const refs: number[] = [];
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const shas = new Set([first.sha]);
    const phaseRuns: (typeof first.phases)[] = [];
    const refSeconds: number[] = [];
    for (let r = 0; r < REPS; r++) {
      const cpu = { ours: 0, ref: 0 };
      const sides = [
        async () => {
          const c0 = cpuSeconds();
          const run = await exportOnce(b, path.join(scratch, `run-${runNo++}`));
          shas.add(run.sha);
          phaseRuns.push(run.phases);
          ours.push(texts.length / run.wall);
          cpu.ours = cpuSeconds() - c0;
        },
        async () => {
          const c0 = cpuSeconds();
          const t0 = performance.now();
          await reference.embedQueries(texts);
          cpu.ref = cpuSeconds() - c0;
          refSeconds.push(since(t0));
          refs.push(texts.length / refSeconds[refSeconds.length - 1]);
        },
      ];
      for (let k = 0; k < sides.length; k++) await sides[(k + r) % sides.length]();
      ratios.push(ours[r] / refs[r]);
      cpuRatios.push(cpu.ref / cpu.ours);
    }
    const ratio = median(ratios);
    console.log(
      `reference (query-embedding pipeline, ${reference.settings.sessions} session(s) × ${reference.settings.threadsPerSession} thread(s)): ${median(refs).toFixed(1)} lines/s`,
    );
    console.log(
      `export, end to end (plan + shards + merge, retriever already open): ${median(ours).toFixed(1)} lines/s = ${(100 * ratio).toFixed(1)} % of the reference (median of ${REPS} interleaved repetitions)  [goal ≥ 90 %]`,
    );
    console.log(
      `  per CPU-second of this process (all its threads; less sensitive to other processes' load): export ${(100 * median(cpuRatios)).toFixed(1)} % of the reference's lines per CPU-second`,
    );
    printBreakdown(phaseRuns, median(refSeconds), cold);
    console.log(
      `  inference_input.jsonl identical across ${REPS + 1} runs: ${shas.size === 1 ? 'yes' : `NO (${shas.size} different)`} (sha256 ${[...shas][0].slice(0, 16)}…)`,
    );
  } finally {
    await reference.dispose();
    rmSync(scratch, { recursive: true, force: true });
  }
  process.exit(0); // the activities' retriever cache holds worker threads open
}

await main();
