import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Embedder } from '../../src/embed/embedder';
import { IndexCorruptError, IndexMismatchError } from '../../src/index/errors';
import { indexFiles } from '../../src/index/manifest';
import { RAGRetriever } from '../../src/index/retriever';
import { requireSharedData } from '../helpers/shared-data';
import { MINILM, modelPresent, requireModel, TEST_MODELS } from '../embed/models';
import { sampleOpenitiSentences } from './openiti-sample';
import { generatedArabicSentences, ocrNoise, rng, writeCorpus } from './synthetic';

async function openError(config: Parameters<typeof RAGRetriever.open>[0]): Promise<Error> {
  try {
    const r = await RAGRetriever.open(config);
    await r.close();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected RAGRetriever.open to fail');
}

describe('index/retriever', function () {
  describe('without an index or a model', () => {
    let tmp: string;
    before(function () {
      requireModel(this, MINILM);
      tmp = mkdtempSync(path.join(os.tmpdir(), 'retr-none-'));
    });
    after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

    it('is disabled with the reason, and retrieve() says to run `phase5 build`', async () => {
      const indexPath = path.join(tmp, 'index.usearch');
      const r = await RAGRetriever.open({ indexPath, embedding: { modelDir: MINILM.dir, threads: 1 } });
      expect(r.enabled).to.equal(false);
      expect(r.disabledReason).to.equal(`no index at ${indexPath} — run \`phase5 build\``);
      let err: Error | undefined;
      await r.retrieve('قال أبو عثمان').catch((e: Error) => (err = e));
      expect(err?.message).to.equal(`no index at ${indexPath} — run \`phase5 build\``);
      await r.close();
    });

    it('returns [] instead when configured for graceful degradation', async () => {
      const r = await RAGRetriever.open({
        indexPath: path.join(tmp, 'index.usearch'),
        embedding: { modelDir: MINILM.dir, threads: 1 },
        whenDisabled: 'empty',
      });
      expect(await r.retrieve('قال أبو عثمان')).to.deep.equal([]);
      await r.close();
    });

    it('is disabled with the model error when the model dir is incomplete', async () => {
      const r = await RAGRetriever.open({ indexPath: path.join(tmp, 'index.usearch'), embedding: { modelDir: tmp } });
      expect(r.enabled).to.equal(false);
      expect(r.disabledReason).to.equal(`embedding model unavailable: model dir ${tmp} has no model.onnx or onnx/model.onnx`);
      let err: Error | undefined;
      await r.retrieve('قال').catch((e: Error) => (err = e));
      expect(err?.message).to.match(/retrieval is disabled: embedding model unavailable/);
    });
  });

  describe('built index (MiniLM, generated sentences)', () => {
    let tmp: string;
    let emb: Embedder;
    let r: RAGRetriever;
    let corpusPath: string;
    let indexPath: string;
    const texts = generatedArabicSentences(60, 9);

    before(async function () {
      requireModel(this, MINILM);
      tmp = mkdtempSync(path.join(os.tmpdir(), 'retr-'));
      corpusPath = writeCorpus(path.join(tmp, 'corpus.jsonl'), texts);
      indexPath = path.join(tmp, 'index.usearch');
      emb = await Embedder.load({ modelDir: MINILM.dir, threads: 2 });
      r = await RAGRetriever.open({ indexPath, corpusPath, embedding: emb, topK: 3 });
      expect(r.enabled).to.equal(false);
      const m = await r.buildIndex(corpusPath, indexPath, { showProgress: false });
      expect(m.index.count).to.equal(60);
    });
    after(async () => {
      await r?.close();
      await emb?.dispose();
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    });

    it('is enabled after buildIndex, with the manifest of the build', () => {
      expect(r.enabled).to.equal(true);
      expect(r.disabledReason).to.equal(null);
      expect(r.size).to.equal(60);
      expect(r.manifest?.model.id).to.equal('all-MiniLM-L6-v2');
    });

    it('returns top-k (default from config) sorted by score, with ranks, idx, source and date', async () => {
      const res = await r.retrieve(texts[10]);
      expect(res).to.have.length(3);
      expect(res[0]).to.deep.equal({
        text: texts[10],
        source_uri: '0300Gen.Book1.Gen-ara1',
        score: res[0].score,
        rank: 1,
        idx: 10,
        date: 290,
      });
      expect(res[0].score).to.be.closeTo(1, 1e-4);
      expect(res.map((c) => c.rank)).to.deep.equal([1, 2, 3]);
    });

    it('returns the whole corpus when k exceeds it, scores descending within [0, 1]', async () => {
      const res = await r.retrieve('روى القاضي أن السوق امتلأ بالناس', 1000);
      expect(res).to.have.length(60);
      expect(new Set(res.map((c) => c.idx)).size).to.equal(60);
      for (let i = 0; i < res.length; i++) {
        expect(res[i].score).to.be.within(0, 1);
        expect(res[i].rank).to.equal(i + 1);
        expect(res[i].text).to.equal(texts[res[i].idx]);
        if (i) expect(res[i].score).to.be.at.most(res[i - 1].score);
      }
    });

    it('drops results below minScore', async () => {
      const all = await r.retrieve(texts[0], 60);
      const cut = all[20].score;
      const res = await r.retrieve(texts[0], 60, cut);
      expect(res.length).to.be.within(21, 59);
      expect(res.every((c) => c.score >= cut)).to.equal(true);
    });

    it('returns [] for empty or non-Arabic queries', async () => {
      for (const q of ['', '   ', 'hello world', '12345 ...', '١٢٣']) expect(await r.retrieve(q), JSON.stringify(q)).to.deep.equal([]);
      const many = await r.retrieveMany(['', texts[1], 'OCR garbage'], 2);
      expect(many[0]).to.deep.equal([]);
      expect(many[1][0].idx).to.equal(1);
      expect(many[2]).to.deep.equal([]);
    });

    it('retrieveMany gives the same results as retrieve one by one', async () => {
      const qs = [texts[5], 'كتب الطبيب أن النهر فاض', texts[42], 'ذكر المؤرخ أن الخليفة خرج'];
      const many = await r.retrieveMany(qs, 4);
      for (let i = 0; i < qs.length; i++) {
        const one = await r.retrieve(qs[i], 4);
        expect(many[i].map((c) => c.idx)).to.deep.equal(one.map((c) => c.idx));
        many[i].forEach((c, j) => expect(c.score).to.be.closeTo(one[j].score, 1e-5));
      }
    });

    it('finds every corpus sentence as its own top-1', async () => {
      const res = await r.retrieveMany(texts, 1);
      expect(res.map((x) => x[0].idx)).to.deep.equal(texts.map((_, i) => i));
    });

    it('does not rebuild an up-to-date index (no embedding work)', async () => {
      let batches = 0;
      await r.buildIndex(corpusPath, indexPath, { showProgress: false, onBatch: () => void batches++ });
      expect(batches).to.equal(0);
      expect(r.enabled).to.equal(true);
    });

    it('refuses an index built from another corpus or with other embedding settings', async () => {
      const other = writeCorpus(path.join(tmp, 'other', 'corpus.jsonl'), texts.slice(0, 59));
      const err = await openError({ indexPath, corpusPath: other, embedding: emb });
      expect(err).to.be.instanceOf(IndexMismatchError);
      expect(err.message).to.match(
        /^index at .*index\.usearch was built with corpus\.sha256=[0-9a-f]{12}…, config says [0-9a-f]{12}… — rebuild with `phase5 build --force`$/,
      );
      expect((await openError({ indexPath, embedding: { modelDir: MINILM.dir, maxLength: 64, threads: 1 } })).message).to.match(
        /built with model\.max_length=256, config says 64/,
      );
      expect((await openError({ indexPath, embedding: emb, index: { type: 'hnsw' } })).message).to.match(
        /built with index\.type="exact", config says "hnsw"/,
      );
    });

    it('refuses an index whose sentence list is truncated', async () => {
      const dir = path.join(tmp, 'copy');
      const copy = path.join(dir, 'index.usearch');
      const src = indexFiles(indexPath);
      const dst = indexFiles(copy);
      mkdirSync(dir, { recursive: true });
      copyFileSync(src.index, dst.index);
      copyFileSync(src.manifest, dst.manifest);
      const lines = readFileSync(src.sentences, 'utf8').split('\n');
      writeFileSync(dst.sentences, lines.slice(0, 30).join('\n') + '\n');
      const err = await openError({ indexPath: copy, embedding: emb });
      expect(err).to.be.instanceOf(IndexCorruptError);
      expect(err.message).to.match(/index\.usearch\.sentences\.jsonl is unusable: has 30 sentences, the manifest says 60 \(truncated\?\)/);
    });
  });

  describe('retrieval quality on real OpenITI sentences', function () {
    const N = 300;
    let sentences: string[];
    before(function () {
      const root = requireSharedData(this, 'openiti');
      // 160-char cap keeps the test quick; 300 sentences spread over many books.
      sentences = sampleOpenitiSentences(root, N, { perFile: 3, maxChars: 160 });
      expect(sentences.length).to.equal(N);
    });

    for (const m of TEST_MODELS) {
      describe(m.name, function () {
        let tmp: string;
        let r: RAGRetriever;
        before(async function () {
          if (!modelPresent(m)) {
            console.log(`    (skipped: ${m.name} has no model.onnx at ${m.dir})`);
            this.skip();
          }
          tmp = mkdtempSync(path.join(os.tmpdir(), 'retr-openiti-'));
          const corpusPath = writeCorpus(path.join(tmp, 'corpus.jsonl'), sentences);
          r = await RAGRetriever.open({
            indexPath: path.join(tmp, 'index.usearch'),
            corpusPath,
            embedding: { modelDir: m.dir, threads: 2, batchSize: 32 },
          });
          await r.buildIndex(corpusPath, undefined, { showProgress: false });
        });
        after(async () => {
          await r?.close();
          if (tmp) rmSync(tmp, { recursive: true, force: true });
        });

        it('the passage embedding of a sentence is the top-1 for its query embedding (100 sentences)', async () => {
          const idx = Array.from({ length: 100 }, (_, i) => i * 3);
          const res = await r.retrieveMany(
            idx.map((i) => sentences[i]),
            1,
          );
          const misses = idx.filter((i, j) => res[j][0]?.idx !== i);
          expect(misses, `sentences not found as their own top-1`).to.deep.equal([]);
        });

        it('finds the source of an OCR-noised sentence (3 altered characters) in the top 3 for ≥ 90 % of 200', async () => {
          const rand = rng(2024);
          const picked = Array.from({ length: 200 }, (_, i) => Math.floor((i * N) / 200));
          const noisy = picked.map((i) => ocrNoise(sentences[i], 3, rand));
          expect(noisy.filter((q, j) => q !== sentences[picked[j]]).length).to.be.greaterThan(190);
          const res = await r.retrieveMany(noisy, 3);
          const found = picked.filter((i, j) => res[j].some((c) => c.idx === i)).length;
          console.log(`      ${m.name}: source in top 3 for ${found}/200 noisy queries`);
          expect(found / 200).to.be.at.least(0.9);
        });
      });
    }
  });
});
