import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Embedder } from '../../src/embed/embedder';
import { TextTokenizer } from '../../src/embed/tokenizer';
import { buildFeeds } from '../../src/embed/feeds';
import { FIXTURES } from '../helpers/shared-data';
import { MINILM, modelPresent, requireModel, TEST_MODELS } from './models';

const cases: string[] = JSON.parse(readFileSync(path.join(FIXTURES, 'embed', 'tokenizer-cases.json'), 'utf8'));
// Sentences of very different lengths, so sorted batches really pad.
const TEXTS = [
  'قال أبو عثمان',
  'وقال الجاحظ في كتاب الحيوان إن الكلب أشد وفاء من كثير من الناس وأصبر على الأذى',
  'بسم الله الرحمن الرحيم',
  cases[20],
  'العلم',
  cases[25],
  'حدثنا محمد بن إسماعيل قال حدثنا عبد الله بن يوسف عن مالك عن نافع عن ابن عمر',
  cases[30],
  'ونزل القوم بالوادي',
];

function row(m: Float32Array, dims: number, i: number): Float32Array {
  return m.subarray(i * dims, (i + 1) * dims);
}
function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).to.equal(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}
function norm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

describe('embed/embedder', function () {
  for (const m of TEST_MODELS) {
    describe(m.name, function () {
      let emb: Embedder;
      before(async function () {
        if (m !== MINILM && !modelPresent(m)) {
          console.log(`    (skipped: ${m.name} has no model.onnx yet)`);
          this.skip();
        }
        requireModel(this, m);
        emb = await Embedder.load({ modelDir: m.dir, threads: 2, batchSize: 4 });
      });
      after(async () => emb?.dispose());

      it('returns one row-major n × dims Float32Array of unit vectors', async () => {
        const v = await emb.embedPassages(TEXTS);
        expect(emb.dims).to.equal(384);
        expect(v).to.be.instanceOf(Float32Array);
        expect(v.length).to.equal(TEXTS.length * emb.dims);
        for (let i = 0; i < TEXTS.length; i++) expect(norm(row(v, emb.dims, i))).to.be.closeTo(1, 1e-5);
        expect(await emb.embedPassages([])).to.have.length(0);
      });

      it('matches the Python reference (Rust tokenizers + onnxruntime + numpy pooling) within 1e-4', async function () {
        const ref = JSON.parse(readFileSync(path.join(FIXTURES, 'embed', `reference-${m.name}.json`), 'utf8')) as {
          embeddings?: number[][];
          passage_prefix: string;
        };
        if (!ref.embeddings) this.skip();
        const got = await emb.embedPassages(cases.slice(0, ref.embeddings!.length));
        ref.embeddings!.forEach((want, i) => expect(maxAbsDiff(row(got, emb.dims, i), want), `case ${i}`).to.be.below(1e-4));
      });

      it('returns rows in input order whatever the batch order (reversed input → reversed rows)', async () => {
        const fwd = await emb.embedPassages(TEXTS);
        const rev = await emb.embedPassages([...TEXTS].reverse());
        for (let i = 0; i < TEXTS.length; i++) {
          expect(maxAbsDiff(row(fwd, emb.dims, i), row(rev, emb.dims, TEXTS.length - 1 - i))).to.be.below(1e-5);
        }
      });

      it('gives the same vectors from padded length-sorted batches as one by one (within 1e-5)', async () => {
        const batched = await emb.embedPassages(TEXTS);
        const lengths = emb.tokenize(TEXTS, 'passage').map((t) => t.length);
        expect(Math.max(...lengths) - Math.min(...lengths)).to.be.greaterThan(10); // padding really happens
        for (let i = 0; i < TEXTS.length; i++) {
          const single = await emb.embedPassages([TEXTS[i]]);
          expect(maxAbsDiff(row(batched, emb.dims, i), single), TEXTS[i]).to.be.below(1e-5);
        }
      });

      it('gives bit-identical vectors whichever texts share the call (export retrieval groups and build chunks rely on it)', async () => {
        const together = await emb.embedQueries(TEXTS);
        const half = Math.ceil(TEXTS.length / 2);
        const apart = new Float32Array(together.length);
        apart.set(await emb.embedQueries(TEXTS.slice(half)), half * emb.dims);
        apart.set(await emb.embedQueries(TEXTS.slice(0, half)), 0);
        expect(emb.prepareBatches(emb.tokenize(TEXTS, 'query')).map((b) => b.seqLen)).to.not.deep.equal([
          ...emb.prepareBatches(emb.tokenize(TEXTS.slice(0, half), 'query')).map((b) => b.seqLen),
          ...emb.prepareBatches(emb.tokenize(TEXTS.slice(half), 'query')).map((b) => b.seqLen),
        ]); // the batches (and their padding) really differ
        expect(apart).to.deep.equal(together);
      });

      it('cuts batches where padding costs more than a run, with the same vectors as fixed runs of batchSize', async () => {
        const tokenized = emb.tokenize(TEXTS, 'passage');
        const planned = emb.prepareBatches(tokenized);
        const fixed = emb.prepareBatches(tokenized, emb.settings.batchSize, Infinity);
        const padded = (bs: typeof planned) => bs.reduce((s, b) => s + b.ids.length, 0);
        expect(fixed.map((b) => b.rows.length)).to.deep.equal([4, 4, 1]);
        expect(padded(planned)).to.be.below(padded(fixed)); // the cut really differs
        const byFixedRuns = new Float32Array(TEXTS.length * emb.dims);
        for (const b of fixed) {
          const v = await emb.runBatch(b);
          b.rows.forEach((r, i) => byFixedRuns.set(row(v, emb.dims, i), r * emb.dims));
        }
        expect(await emb.embedPassages(TEXTS)).to.deep.equal(byFixedRuns);
      });

      it('feeds exactly the inputs the model declares (token_type_ids only when present)', () => {
        const [batch] = emb.prepareBatches(emb.tokenize(['قال'], 'query'));
        const expected = m.name === MINILM.name ? ['attention_mask', 'input_ids', 'token_type_ids'] : ['attention_mask', 'input_ids'];
        expect([...emb.inputNames].sort()).to.deep.equal(expected);
        const feeds = buildFeeds(batch.ids, batch.mask, 1, batch.seqLen, emb.inputNames, 'int64');
        expect(Object.keys(feeds).sort()).to.deep.equal(expected);
      });

      it(m.prefixed ? 'adds the query/passage prefixes (different vectors)' : 'uses no prefixes (query = passage)', async () => {
        const q = await emb.embedQueries([TEXTS[1]]);
        const p = await emb.embedPassages([TEXTS[1]]);
        const diff = maxAbsDiff(q, p);
        if (m.prefixed) {
          expect(diff).to.be.above(1e-3);
          const tok = TextTokenizer.load(path.join(m.dir, 'tokenizer.json'));
          expect(emb.tokenize(['قال'], 'query')[0]).to.deep.equal(tok.encode('query: قال', 512));
          expect(emb.tokenize(['قال'], 'passage')[0]).to.deep.equal(tok.encode('passage: قال', 512));
        } else expect(diff).to.equal(0);
      });

      it('exposes the sha256 of the main model file', () => {
        const want = createHash('sha256').update(readFileSync(emb.files.modelFile)).digest('hex');
        expect(emb.modelSha256).to.equal(want);
        expect(emb.identity.sha256).to.equal(want);
      });
    });
  }

  describe('settings (MiniLM)', function () {
    before(function () {
      requireModel(this, MINILM);
    });

    it('cls pooling takes the first token state; normalize=false keeps raw norms', async () => {
      const cls = await Embedder.load({ modelDir: MINILM.dir, pooling: 'cls', normalize: false, threads: 1 });
      const mean = await Embedder.load({ modelDir: MINILM.dir, pooling: 'mean', normalize: false, threads: 1 });
      try {
        const [batch] = cls.prepareBatches(cls.tokenize([TEXTS[1]], 'passage'));
        const hidden = (await cls.runSession(batch)).data as Float32Array;
        const v = await cls.embedPassages([TEXTS[1]]);
        expect(maxAbsDiff(v, hidden.subarray(0, cls.dims))).to.equal(0);
        const mv = await mean.embedPassages([TEXTS[1]]);
        expect(Math.abs(norm(mv) - 1)).to.be.above(1e-3);
        expect(maxAbsDiff(mv, v)).to.be.above(1e-3);
      } finally {
        await cls.dispose();
        await mean.dispose();
      }
    });

    it('truncates long inputs to maxLength tokens', async () => {
      const e = await Embedder.load({ modelDir: MINILM.dir, maxLength: 16, threads: 1 });
      try {
        const [ids] = e.tokenize([cases[cases.length - 1]], 'passage');
        expect(ids).to.have.length(16);
        expect(ids[0]).to.equal(101); // [CLS]
        expect(ids[15]).to.equal(102); // [SEP]
        expect((await e.embedPassages([cases[cases.length - 1]])).length).to.equal(e.dims);
      } finally {
        await e.dispose();
      }
    });

    it('rejects a maxLength too small for the special tokens', async () => {
      let err: Error | undefined;
      await Embedder.load({ modelDir: MINILM.dir, maxLength: 2 }).catch((e: Error) => (err = e));
      expect(err?.message).to.match(/maxLength must be an integer >= 3/);
    });
  });

  describe('broken model directories', function () {
    let tmp: string;
    before(function () {
      requireModel(this, MINILM);
      tmp = mkdtempSync(path.join(os.tmpdir(), 'embed-bad-'));
    });
    after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

    /** A copy of MiniLM's small files (graph + tokenizer), optionally without the 90 MB external data. */
    function makeDir(name: string, opts: { data?: boolean; tokenizer?: boolean; model?: boolean } = {}): string {
      const d = path.join(tmp, name);
      mkdirSync(path.join(d, 'onnx'), { recursive: true });
      if (opts.model ?? true) copyFileSync(path.join(MINILM.dir, 'onnx', 'model.onnx'), path.join(d, 'onnx', 'model.onnx'));
      if (opts.data) copyFileSync(path.join(MINILM.dir, 'onnx', 'model.onnx_data'), path.join(d, 'onnx', 'model.onnx_data'));
      if (opts.tokenizer ?? true) copyFileSync(path.join(MINILM.dir, 'tokenizer.json'), path.join(d, 'tokenizer.json'));
      return d;
    }
    async function loadError(opts: Parameters<typeof Embedder.load>[0]): Promise<string> {
      try {
        const e = await Embedder.load(opts);
        await e.dispose();
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('expected Embedder.load to fail');
    }

    it('names a directory that does not exist', async () => {
      expect(await loadError({ modelDir: path.join(tmp, 'nope') })).to.match(/model dir .*nope does not exist/);
    });

    it('names the missing tokenizer.json', async () => {
      const d = makeDir('no-tok', { tokenizer: false });
      expect(await loadError({ modelDir: d })).to.equal(`model dir ${d} has no tokenizer.json`);
    });

    it('names the missing model file', async () => {
      const d = makeDir('no-model', { model: false });
      expect(await loadError({ modelDir: d })).to.equal(`model dir ${d} has no model.onnx or onnx/model.onnx`);
      expect(await loadError({ modelDir: d, modelFile: 'model_int8.onnx' })).to.equal(
        `model dir ${d} has no model_int8.onnx (configured model file)`,
      );
    });

    it('says when model.onnx is a Git LFS pointer', async () => {
      const d = makeDir('lfs', { model: false });
      writeFileSync(path.join(d, 'model.onnx'), 'version https://git-lfs.github.com/spec/v1\noid sha256:4ad1b2c3\nsize 90000000\n');
      expect(await loadError({ modelDir: d })).to.match(/model\.onnx is a Git LFS pointer .*git lfs pull/);
    });

    it('says when the external data file is a Git LFS pointer', async () => {
      const d = makeDir('lfs-data');
      writeFileSync(path.join(d, 'onnx', 'model.onnx_data'), 'version https://git-lfs.github.com/spec/v1\noid sha256:4ad1\nsize 9\n');
      expect(await loadError({ modelDir: d })).to.match(/external data file .*model\.onnx_data is a Git LFS pointer/);
    });

    it('names the missing external data file', async () => {
      const d = makeDir('no-data');
      const msg = await loadError({ modelDir: d });
      expect(msg).to.contain(`cannot load ONNX model ${path.join(d, 'onnx', 'model.onnx')}`);
      expect(msg).to.contain('model.onnx_data');
    });

    it('reports a truncated model as not a valid ONNX model', async () => {
      const d = makeDir('trunc', { model: false });
      const full = readFileSync(path.join(MINILM.dir, 'onnx', 'model.onnx'));
      writeFileSync(path.join(d, 'model.onnx'), full.subarray(0, 20000));
      expect(await loadError({ modelDir: d })).to.match(/cannot load ONNX model .*model\.onnx: .*not a valid ONNX model/);
    });

    it('reports an empty model file', async () => {
      const d = makeDir('empty', { model: false });
      writeFileSync(path.join(d, 'model.onnx'), '');
      expect(await loadError({ modelDir: d })).to.match(/model file .*model\.onnx is empty/);
    });

    it('loads a complete copy (the fixtures above fail for the reason they claim)', async function () {
      if (!existsSync(path.join(MINILM.dir, 'onnx', 'model.onnx_data'))) this.skip();
      const d = makeDir('complete', { data: true });
      const e = await Embedder.load({ modelDir: d, threads: 1 });
      expect(e.dims).to.equal(384);
      await e.dispose();
    });
  });
});
