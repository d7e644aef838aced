/**
 * Inference throughput of the two LLM backends.
 *
 *   npx tsx bench/infer.ts [--local-only | --http-only] [--n 20] [--max-tokens 48] [--threads 1,2]
 *                          [--requests 2000] [--model PATH] [--ocr-gs DIR]
 *
 * 1. Local GGUF (node-llama-cpp, default SmolLM2-135M Q4_1): zero-shot prompts for the first N OCR_GS lines
 *    of Jahiz.Hayawan (fixtures when the shared data is absent); reports generated tokens/s, prompt tokens/s
 *    and per-call latency for each thread count.
 * 2. HTTP client (openai SDK, retries in our loop): a fake chat-completions server in a *separate process*
 *    answering a fixed tiny completion; requests/s at concurrency 1/8/32 for the backend, for plain
 *    `fetch` as the ceiling of the client stack, and for the full runner (prompt build + clean + JSONL).
 *    If backend ≈ fetch, the SDK is not the bottleneck; a real server (ms to s per request) is far slower.
 * Numbers are printed, never asserted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../src/datasets';
import { buildZeroShot } from '../src/prompts/builder';
import { OpenAiCompatibleBackend } from '../src/llm/openai-backend';
import { runPool } from '../src/llm/pool';
import { runCorrections } from '../src/llm/runner';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const flag = (name: string) => process.argv.includes(name);

const N = Number(arg('--n', '20'));
const MAX_TOKENS = Number(arg('--max-tokens', '48'));
const THREADS = arg('--threads', '1,2').split(',').map(Number);
const REQUESTS = Number(arg('--requests', '2000'));
const MODEL = arg('--model', path.join(REPO, 'models', 'smollm2-135m-instruct', 'SmolLM2-135M-Instruct.Q4_1.gguf'));
const OCR_GS = arg('--ocr-gs', path.join(process.env.SHARED_DATA ?? path.resolve(REPO, '..', 'shared', 'data'), 'ocr-gs'));

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function benchLocal(): Promise<void> {
  if (!existsSync(MODEL)) {
    console.log(`local: model not found at ${MODEL} (run npm run setup) — skipped`);
    return;
  }
  const bookDir = path.join(OCR_GS, 'book_Jahiz.Hayawan');
  const spec = existsSync(bookDir)
    ? ({ key: 'OCR_GS-Jahiz.Hayawan', type: 'paired_dir', path: bookDir } as const)
    : ({ key: 'FIX', type: 'paired_dir', path: path.join(REPO, 'test', 'fixtures', 'datasets', 'paired') } as const);
  const { samples } = await loadDataset(spec, { limit: N });
  const { LlamaCppBackend } = await import('../src/llm/llama-backend');
  console.log(
    `\n## Local GGUF: ${path.basename(MODEL)}, ${samples.length} lines of ${spec.key}, zero-shot v1, max_tokens ${MAX_TOKENS}, greedy`,
  );
  console.log(
    '| threads | load s | calls | prompt tok | gen tok | prompt eval tok/s | decode tok/s | end-to-end gen tok/s | call p50 ms | call p95 ms |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const threads of THREADS) {
    const t0 = performance.now();
    const backend = await LlamaCppBackend.create({ modelPath: MODEL, threads, contextSize: 1024, maxTokens: MAX_TOKENS });
    const loadS = (performance.now() - t0) / 1000;
    await backend.complete(buildZeroShot('تسخين').messages, { maxTokens: 2 }); // warm-up
    let promptTok = 0;
    let genTok = 0;
    let genMs = 0;
    let firstMs = 0;
    const lat: number[] = [];
    for (const s of samples) {
      const r = await backend.complete(buildZeroShot(s.ocr_text).messages);
      promptTok += r.promptTokens ?? 0;
      genTok += r.completionTokens ?? 0;
      genMs += r.latencyMs;
      firstMs += r.firstTokenMs ?? 0;
      lat.push(r.latencyMs);
    }
    await backend.close();
    const secs = genMs / 1000;
    // Prompt evaluation ends at the first token; decode = the remaining tokens over the remaining time.
    const promptRate = promptTok / (firstMs / 1000);
    const decodeRate = (genTok - samples.length) / ((genMs - firstMs) / 1000);
    console.log(
      `| ${threads} | ${loadS.toFixed(1)} | ${samples.length} | ${promptTok} | ${genTok} | ${promptRate.toFixed(0)} | ${decodeRate.toFixed(1)} | ${(genTok / secs).toFixed(1)} | ${pct(lat, 50)} | ${pct(lat, 95)} |`,
    );
  }
  console.log(
    `(end-to-end gen tok/s = generated tokens / total call time; load average now ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores — a shared machine slows multi-thread runs most)`,
  );
}

// The fake server runs in its own process so client and server do not share one event loop.
const SERVER_JS = `
import http from 'node:http';
const body = JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'fake',
  choices: [{ index: 0, message: { role: 'assistant', content: 'قال أبو عثمان' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 40, completion_tokens: 5, total_tokens: 45 } });
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

async function startServerProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER_JS], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (code) => reject(new Error(`fake server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/v1`, child };
}

async function benchHttp(): Promise<void> {
  const { url, child } = await startServerProcess();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-infer-'));
  try {
    const messages = buildZeroShot('بلعو واحلة امتفرغن تلل التمة عليما').messages;
    const payload = JSON.stringify({ model: 'fake', messages, temperature: 0, max_tokens: 64 });
    console.log(`\n## HTTP client vs a fake chat-completions server (separate process, fixed tiny answer), ${REQUESTS} requests per cell`);
    console.log('| concurrency | backend req/s | plain fetch req/s | runner records/s | backend p50 ms | backend p99 ms |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    for (const c of [1, 8, 32]) {
      const backend = new OpenAiCompatibleBackend({ baseUrl: url, model: 'fake', concurrency: c, maxTokens: 64 });
      await runPool(Array.from({ length: 50 }), c, () => backend.complete(messages)); // warm-up (connections)
      const lat: number[] = [];
      let t = performance.now();
      await runPool(Array.from({ length: REQUESTS }), c, async () => lat.push((await backend.complete(messages)).latencyMs));
      const backendRps = REQUESTS / ((performance.now() - t) / 1000);

      t = performance.now();
      await runPool(Array.from({ length: REQUESTS }), c, async () => {
        const r = await fetch(`${url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: payload,
        });
        await r.json();
      });
      const fetchRps = REQUESTS / ((performance.now() - t) / 1000);

      const input = Array.from({ length: REQUESTS }, (_, i) => ({
        sample_id: `B/${i}`,
        dataset: 'B',
        ocr_text: 'بلعو واحلة امتفرغن',
        gt_text: 'بلغة واحدة',
        retrieval_context: 'نصوص مرجعية صحيحة:\n1. بلغة واحدة استفرغت',
      }));
      t = performance.now();
      await runCorrections({
        inputPath: input,
        outputPath: path.join(dir, `c${c}.jsonl`),
        backend,
        prompt: 'rag',
        concurrency: c,
        progress: 'silent',
      });
      const runnerRps = REQUESTS / ((performance.now() - t) / 1000);
      console.log(
        `| ${c} | ${backendRps.toFixed(0)} | ${fetchRps.toFixed(0)} | ${runnerRps.toFixed(0)} | ${pct(lat, 50)} | ${pct(lat, 99)} |`,
      );
    }
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!flag('--http-only')) await benchLocal();
if (!flag('--local-only')) await benchHttp();
