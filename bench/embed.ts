/**
 * Embedding throughput: ours (tokenizers.js + onnxruntime-node, src/embed) vs the Python reference
 * (HF `tokenizers` + onnxruntime + numpy, bench/python/embed_reference.py) on the same real OpenITI
 * sentences, same model, same thread count, at most the same batch size, length-sorted batches and truncation.
 * The reference cuts the sorted texts into fixed runs of the batch size, ours where padding would cost more
 * than another run (src/embed/batch-plan.ts); a line shows our sessions on the reference's cut. Also reports
 * our session-only speed (the same batches through the same sessions, tokenization and pooling excluded)
 * to show the pipeline overhead: summed over chunks, as the median of the per-chunk ratios, and per CPU-second of
 * this process (what the pipeline adds to the sessions' work, whatever other processes do to the wall clock).
 *
 *   npx tsx bench/embed.ts [--n 5000] [--threads 2] [--batch-size 32] [--chunks 10] [--sessions auto]
 *                          [--models all-MiniLM-L6-v2,multilingual-e5-small] [--no-same-layout]
 *
 * Both sides get the same number of CPU threads. Ours uses its default layout (`--sessions auto`: one
 * single-threaded session per thread, batches in parallel); the Python reference uses the usual one
 * session with intra-op threads. A third column runs ours in that same one-session layout, to separate
 * what the layout brings from what the rest of the pipeline costs.
 *
 * Method: the sentences are cut into chunks; for every chunk each contestant embeds it back to back (the
 * order rotates), with the Python reference kept running as a server so no start-up is timed. Load from
 * other processes then hits all sides alike; totals are summed over chunks and the median per-chunk ratio
 * is shown as well. The Python venv is created on first use (bench/venv.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { Embedder } from '../src/embed/embedder';
import { MODEL_FILE_CANDIDATES } from '../src/embed/model-dir';
import { OPENITI_ROOT, REPO_ROOT } from '../test/helpers/shared-data';
import { sampleOpenitiSentences } from '../test/index/openiti-sample';
import { ensureBenchVenv } from './venv';

const { values: a } = parseArgs({
  options: {
    n: { type: 'string', default: '5000' },
    threads: { type: 'string', default: '2' },
    'batch-size': { type: 'string', default: '32' },
    chunks: { type: 'string', default: '10' },
    models: { type: 'string', default: 'all-MiniLM-L6-v2,multilingual-e5-small' },
    sessions: { type: 'string', default: 'auto' },
    'no-same-layout': { type: 'boolean', default: false },
  },
});
const SESSIONS = a.sessions === 'auto' ? 'auto' : Number(a.sessions);
const N = Number(a.n);
const T = Number(a.threads);
const B = Number(a['batch-size']);
const CHUNKS = Number(a.chunks);
/** CPU seconds of this process so far, every thread (the session workers too). */
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

if (!existsSync(OPENITI_ROOT)) {
  console.error(`OpenITI data not found at ${OPENITI_ROOT} (set SHARED_DATA)`);
  process.exit(2);
}
const cache = path.join(REPO_ROOT, 'data', 'cache', 'bench');
mkdirSync(cache, { recursive: true });
const sentences = sampleOpenitiSentences(OPENITI_ROOT, N);
const py = ensureBenchVenv();
const refScript = path.join(REPO_ROOT, 'bench', 'python', 'embed_reference.py');

interface PyTimings {
  pipeline_s: number;
  session_s: number;
  tokenize_s: number;
}

/** The Python reference as a long-lived process: one JSON array of texts in, one timing line out. */
async function startReference(dir: string, maxLength: number, prefix: string) {
  const child = spawn(
    py,
    [
      refScript,
      'serve',
      '--model-dir',
      dir,
      '--threads',
      String(T),
      '--batch-size',
      String(B),
      '--max-length',
      String(maxLength),
      '--prefix',
      prefix,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error('python reference exited');
    return JSON.parse(r.value) as Record<string, unknown>;
  };
  const hello = await next();
  return {
    ortVersion: String(hello.ort_version),
    async embed(texts: string[]): Promise<PyTimings> {
      child.stdin!.write(JSON.stringify(texts) + '\n');
      return (await next()) as unknown as PyTimings;
    },
    stop() {
      child.stdin!.end();
    },
  };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

console.log(
  `embedding benchmark: ${N} OpenITI sentences (mean ${(sentences.reduce((s, x) => s + x.length, 0) / N).toFixed(0)} chars) in ${CHUNKS} interleaved chunks, ${T} threads, batch ${B}, ${os.cpus().length} CPUs, load avg ${os.loadavg()[0].toFixed(1)}`,
);

for (const name of a.models!.split(',')) {
  const dir = path.join(REPO_ROOT, 'models', name);
  if (!MODEL_FILE_CANDIDATES.some((c) => existsSync(path.join(dir, c)))) {
    console.log(`\n${name}: no model file in ${dir} — skipped`);
    continue;
  }
  const emb = await Embedder.load({ modelDir: dir, threads: T, batchSize: B, sessions: SESSIONS });
  const same = a['no-same-layout'] ? null : await Embedder.load({ modelDir: dir, threads: T, batchSize: B, sessions: 1 });
  const { passagePrefix, maxLength } = emb.settings;
  const tokens = emb.tokenize(sentences, 'passage').reduce((s, t) => s + t.length, 0) / N;
  await emb.embedPassages(sentences.slice(0, 2 * B)); // warm-up
  await same?.embedPassages(sentences.slice(0, 2 * B));
  const ref = await startReference(dir, maxLength, passagePrefix);

  const ours = { total: 0, raw: 0, rawFixed: 0, tokenize: 0 };
  const sameT = { total: 0 };
  const pyT = { total: 0, session: 0, tokenize: 0 };
  const ratios: number[] = [];
  const shares: number[] = [];
  const cpu = { pipeline: 0, raw: 0 };
  const size = Math.ceil(N / CHUNKS);
  for (let c = 0; c < CHUNKS; c++) {
    const chunk = sentences.slice(c * size, (c + 1) * size);
    if (!chunk.length) break;
    let o = 0;
    let p = 0;
    let raw = 0;
    const contestants: (() => Promise<void>)[] = [
      async () => {
        const timings = { tokenizeMs: 0, sessionMs: 0 };
        const c0 = cpuSeconds();
        const t0 = performance.now();
        await emb.embedPassages(chunk, { timings });
        o = (performance.now() - t0) / 1000;
        cpu.pipeline += cpuSeconds() - c0;
        ours.total += o;
        ours.tokenize += timings.tokenizeMs / 1000;
      },
      async () => {
        // Raw session speed: the same batches through the same sessions, nothing else timed.
        const batches = emb.prepareBatches(emb.tokenize(chunk, 'passage'));
        const c0 = cpuSeconds();
        raw = (await emb.runSessionsOnly(batches)) / 1000;
        cpu.raw += cpuSeconds() - c0;
        ours.raw += raw;
      },
      async () => {
        // The same sessions on the reference's cut: fixed runs of B sentences.
        const fixed = emb.prepareBatches(emb.tokenize(chunk, 'passage'), B, Infinity);
        ours.rawFixed += (await emb.runSessionsOnly(fixed)) / 1000;
      },
      async () => {
        const r = await ref.embed(chunk);
        p = r.pipeline_s;
        pyT.total += r.pipeline_s;
        pyT.session += r.session_s;
        pyT.tokenize += r.tokenize_s;
      },
    ];
    if (same) {
      contestants.push(async () => {
        const t0 = performance.now();
        await same.embedPassages(chunk);
        sameT.total += (performance.now() - t0) / 1000;
      });
    }
    for (let k = 0; k < contestants.length; k++) await contestants[(k + c) % contestants.length]();
    ratios.push(p / o);
    shares.push(raw / o);
  }
  ref.stop();

  // Same vectors? (first 200 sentences)
  const sub = sentences.slice(0, 200);
  const subFile = path.join(cache, 'embed-check.json');
  const vecFile = path.join(cache, 'embed-check.f32');
  writeFileSync(subFile, JSON.stringify(sub));
  execFileSync(py, [
    refScript,
    'embed',
    '--model-dir',
    dir,
    '--sentences',
    subFile,
    '--threads',
    String(T),
    '--batch-size',
    String(B),
    '--max-length',
    String(maxLength),
    '--prefix',
    passagePrefix,
    '--out',
    vecFile,
  ]);
  const b = readFileSync(vecFile);
  const refVecs = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  const mine = await emb.embedPassages(sub);
  let maxDiff = 0;
  for (let i = 0; i < mine.length; i++) maxDiff = Math.max(maxDiff, Math.abs(mine[i] - refVecs[i]));
  await emb.dispose();
  await same?.dispose();

  const rate = (s: number) => (N / s).toFixed(1);
  const { sessions, threadsPerSession } = emb.settings;
  console.log(
    `\n${name} (${emb.files.modelFile.replace(REPO_ROOT + '/', '')}; ${tokens.toFixed(1)} tokens/sentence; max ${maxLength}; prefix ${JSON.stringify(passagePrefix)}; onnxruntime node ${ort.env.versions.node} / python ${ref.ortVersion})`,
  );
  console.log(
    `  ours   pipeline: ${rate(ours.total)} sent/s  (${sessions} session(s) × ${threadsPerSession} thread(s); tokenize ${ours.tokenize.toFixed(2)} s of ${ours.total.toFixed(1)} s)`,
  );
  console.log(
    `  python pipeline: ${rate(pyT.total)} sent/s  (1 session × ${T} threads; session ${pyT.session.toFixed(1)} s, tokenize ${pyT.tokenize.toFixed(2)} s, batching+pooling ${(pyT.total - pyT.session - pyT.tokenize).toFixed(2)} s)`,
  );
  if (same)
    console.log(
      `  ours, python's layout: ${rate(sameT.total)} sent/s  (1 session × ${T} threads; ${(pyT.total / sameT.total).toFixed(2)}× python)`,
    );
  const ratio = pyT.total / ours.total;
  console.log(
    `  ours / python: ${ratio.toFixed(2)}× (median per chunk ${median(ratios).toFixed(2)}×)  (goal ≥ 1.2×: ${ratio >= 1.2 ? 'PASS' : 'FAIL'})`,
  );
  const share = ours.raw / ours.total;
  console.log(
    `  ours raw sessions: ${rate(ours.raw)} sent/s; pipeline = ${(100 * share).toFixed(1)} % of raw session speed (median per chunk ${(100 * median(shares)).toFixed(1)} %)  (goal ≥ 95 %: ${share >= 0.95 ? 'PASS' : 'FAIL'})`,
  );
  console.log(
    `  ours raw sessions on the reference's cut (fixed runs of ${B}): ${rate(ours.rawFixed)} sent/s; our cut runs them ${(ours.rawFixed / ours.raw).toFixed(2)}× as fast`,
  );
  console.log(
    `  per CPU-second of this process (sessions' threads included; less sensitive to other processes' load): pipeline ${(100 * (cpu.raw / cpu.pipeline)).toFixed(1)} % of raw sessions`,
  );
  console.log(`  max |ours − python| over 200 sentences: ${maxDiff.toExponential(2)}`);
}
