import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { buildIndexFromVectors } from '../../src/index/build';
import { IndexCorruptError, IndexMismatchError } from '../../src/index/errors';
import { ExactSearcher } from '../../src/index/exact-search';
import {
  checkManifest,
  corpusExpectation,
  indexFiles,
  indexStatus,
  indexTypeFrom,
  readManifest,
  resolveIndexParams,
  type IndexManifest,
} from '../../src/index/manifest';
import { openVectorIndex } from '../../src/index/vector-index';
import { readMatrixFile } from '../../src/index/vector-files';
import { clusteredUnitVectors, fakeModel, writeSyntheticCorpus } from './synthetic';

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

describe('index/build + open (synthetic vectors)', function () {
  const dims = 32;
  let tmp: string;
  before(() => (tmp = mkdtempSync(path.join(os.tmpdir(), 'index-build-'))));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  async function build(
    name: string,
    vectors: Float32Array,
    index: Parameters<typeof buildIndexFromVectors>[0]['index'] = {},
    keepVectors = false,
  ) {
    const dir = path.join(tmp, name);
    const { corpusPath, vectorsPath, n } = writeSyntheticCorpus(dir, vectors, dims);
    const indexPath = path.join(dir, 'index.usearch');
    const manifest = await buildIndexFromVectors({
      corpusPath,
      vectorsPath,
      indexPath,
      model: fakeModel(dims),
      index,
      keepVectors,
      // One construction thread: a multi-threaded HNSW build inserts in a racy order, so its recall varies by run.
      threads: 1,
      progressMode: 'silent',
    });
    return { dir, corpusPath, vectorsPath, indexPath, manifest, n };
  }

  describe('exact', () => {
    let b: Awaited<ReturnType<typeof build>>;
    const vectors = clusteredUnitVectors(500, dims, 3);
    before(async () => (b = await build('exact', vectors)));

    it('writes index.usearch, index.usearch.sentences.jsonl and index.manifest.json', () => {
      const f = indexFiles(b.indexPath);
      expect(f.manifest).to.equal(path.join(b.dir, 'index.manifest.json'));
      expect(f.sentences).to.equal(path.join(b.dir, 'index.usearch.sentences.jsonl'));
      for (const p of Object.values(f)) expect(existsSync(p), p).to.equal(true);
      const lines = readFileSync(f.sentences, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).to.have.length(500);
      expect(lines[7]).to.deep.equal({ idx: 7, text: 'جملة رقم 7', source_uri: '0300Test.Book0.X-ara1', date: 283 });
      expect(existsSync(b.vectorsPath), 'partial vectors removed after the build').to.equal(false);
    });

    it('records model, index and corpus in the manifest', () => {
      const m = readManifest(indexFiles(b.indexPath).manifest);
      expect(m.model).to.include({ id: 'synthetic', sha256: 'a'.repeat(64), dims, pooling: 'mean', normalize: true, passage_prefix: '' });
      expect(m.index).to.include({
        type: 'exact',
        metric: 'cos',
        storage: 'f32',
        file_format: 'f32-matrix',
        count: 500,
        connectivity: null,
      });
      expect(m.index.file_bytes).to.equal(statSync(b.indexPath).size);
      expect(m.index.file_sha256).to.equal(sha(b.indexPath));
      expect(m.corpus).to.deep.equal({ path: b.corpusPath, sha256: sha(b.corpusPath), count: 500 });
      expect(Date.parse(m.created_at)).to.be.closeTo(Date.now(), 60_000);
      expect(m.tool_version).to.equal(JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')).version);
    });

    it('round-trips: the stored matrix equals the input and each vector finds itself', async () => {
      const mat = readMatrixFile(b.indexPath);
      expect(mat.rows).to.equal(500);
      let maxDiff = 0;
      for (let i = 0; i < vectors.length; i++) maxDiff = Math.max(maxDiff, Math.abs(mat.data[i] - vectors[i]));
      expect(maxDiff).to.be.below(1e-6);
      const s = await openVectorIndex(b.indexPath, b.manifest);
      const hits = await s.search(vectors.subarray(0, 20 * dims), 3);
      for (let i = 0; i < 20; i++) {
        expect(hits.keys[i * 3]).to.equal(i);
        expect(hits.scores[i * 3]).to.be.closeTo(1, 1e-5);
      }
      await s.close();
    });

    it('normalises vectors that are not unit length (scores stay cosines)', async () => {
      const scaled = vectors.map((x, i) => x * (1 + (Math.floor(i / dims) % 5)));
      const c = await build('exact-scaled', scaled);
      const s = await openVectorIndex(c.indexPath, c.manifest);
      const hits = await s.search(vectors.subarray(dims, 2 * dims), 1);
      expect(hits.keys[0]).to.equal(1);
      expect(hits.scores[0]).to.be.closeTo(1, 1e-5);
      await s.close();
    });

    it('refuses vectors that do not cover the corpus', async () => {
      const dir = path.join(tmp, 'short');
      const { corpusPath, vectorsPath } = writeSyntheticCorpus(dir, vectors.subarray(0, 10 * dims), dims);
      truncateSync(vectorsPath, 9 * dims * 4);
      let err: Error | undefined;
      await buildIndexFromVectors({
        corpusPath,
        vectorsPath,
        indexPath: path.join(dir, 'index.usearch'),
        model: fakeModel(dims),
        progressMode: 'silent',
      }).catch((e: Error) => (err = e));
      expect(err?.message).to.match(/holds 9 rows of 32 floats but corpus .* has 10 records — finish \(resume\) the embedding first/);
    });
  });

  describe('hnsw', () => {
    const n = 3000;
    const vectors = clusteredUnitVectors(n, dims, 11);
    const queries = clusteredUnitVectors(200, dims, 12);
    let exactKeys: Int32Array;
    before(async () => {
      const ex = await ExactSearcher.create(vectors, dims);
      exactKeys = (await ex.search(queries, 3)).keys;
      await ex.close();
    });

    function recall(keys: Int32Array): number {
      let hit = 0;
      for (let i = 0; i < 200; i++) {
        const want = new Set(Array.from(exactKeys.subarray(i * 3, i * 3 + 3)));
        for (let j = 0; j < 3; j++) if (want.has(keys[i * 3 + j])) hit++;
      }
      return hit / 600;
    }

    for (const storage of ['f32', 'f16', 'i8'] as const) {
      it(`${storage}: usearch file, recall@3 vs exact ≥ ${storage === 'i8' ? 0.9 : 0.97}, same results from view and load`, async () => {
        const b = await build(`hnsw-${storage}`, vectors, {
          type: 'hnsw',
          storage,
          connectivity: 16,
          expansionAdd: 128,
          expansionSearch: 128,
        });
        expect(b.manifest.index).to.include({
          type: 'hnsw',
          storage,
          file_format: 'usearch',
          connectivity: 16,
          expansion_add: 128,
          count: n,
        });
        const viewed = await openVectorIndex(b.indexPath, b.manifest, { view: true });
        const loaded = await openVectorIndex(b.indexPath, b.manifest, { view: false });
        const hv = await viewed.search(queries, 3);
        const hl = await loaded.search(queries, 3);
        expect(Array.from(hv.keys)).to.deep.equal(Array.from(hl.keys));
        expect(recall(hv.keys)).to.be.at.least(storage === 'i8' ? 0.9 : 0.97);
        for (const s of hv.scores) expect(s).to.be.within(-1.01, 1.01);
        const self = await viewed.search(vectors.subarray(5 * dims, 6 * dims), 1);
        expect(self.keys[0]).to.equal(5);
        expect(self.scores[0]).to.be.closeTo(1, storage === 'f32' ? 1e-5 : 0.02);
      });
    }
  });

  describe('damaged files', () => {
    let exact: Awaited<ReturnType<typeof build>>;
    let hnsw: Awaited<ReturnType<typeof build>>;
    before(async () => {
      const v = clusteredUnitVectors(400, dims, 5);
      exact = await build('dmg-exact', v);
      hnsw = await build('dmg-hnsw', v, { type: 'hnsw' });
    });

    async function openError(indexPath: string, manifest: IndexManifest, opts = {}): Promise<Error> {
      try {
        await openVectorIndex(indexPath, manifest, opts);
      } catch (err) {
        return err as Error;
      }
      throw new Error('expected openVectorIndex to fail');
    }

    it('refuses a truncated exact index with a clear error', async () => {
      truncateSync(exact.indexPath, statSync(exact.indexPath).size - 100);
      const err = await openError(exact.indexPath, exact.manifest);
      expect(err).to.be.instanceOf(IndexCorruptError);
      expect(err.message).to.match(
        /index file .*index\.usearch is unusable: \d+ bytes on disk, the manifest recorded \d+ \(truncated or replaced\?\) — rebuild with `phase5 build --force`/,
      );
    });

    it('reads a truncated matrix without a manifest as truncated too', () => {
      expect(() => readMatrixFile(exact.indexPath)).to.throw(IndexCorruptError, /header says 400 × 32 vectors .* \(truncated\?\)/);
    });

    it('refuses a truncated HNSW index before usearch maps it', async () => {
      truncateSync(hnsw.indexPath, statSync(hnsw.indexPath).size - 1000);
      const err = await openError(hnsw.indexPath, hnsw.manifest);
      expect(err).to.be.instanceOf(IndexCorruptError);
      expect(err.message).to.match(/truncated or replaced/);
    });

    it('detects a same-size damaged file with verifyChecksum', async () => {
      const b = await build('dmg-sha', clusteredUnitVectors(50, dims, 9));
      const buf = readFileSync(b.indexPath);
      buf[buf.length - 5] ^= 0xff;
      writeFileSync(b.indexPath, buf);
      expect((await openError(b.indexPath, b.manifest, { verifyChecksum: true })).message).to.match(/sha256 .* differs from the manifest/);
    });

    it('rejects a manifest that is not JSON or not ours', () => {
      const f = path.join(tmp, 'bad.manifest.json');
      writeFileSync(f, '{"format": "openiti-rag-index", ');
      expect(() => readManifest(f)).to.throw(IndexCorruptError, /invalid JSON/);
      writeFileSync(f, '{"format": "faiss"}');
      expect(() => readManifest(f)).to.throw(IndexCorruptError, /not an index manifest/);
      writeFileSync(f, JSON.stringify({ format: 'openiti-rag-index', format_version: 1, model: {}, index: {}, corpus: {} }));
      expect(() => readManifest(f)).to.throw(IndexCorruptError, /missing field model\.sha256/);
    });
  });

  describe('manifest checks', () => {
    let m: IndexManifest;
    before(async () => {
      m = (await build('check', clusteredUnitVectors(20, dims, 4), { type: 'hnsw', connectivity: 8 })).manifest;
    });
    const P = '/r/index.usearch';
    const mismatch = (exp: Parameters<typeof checkManifest>[2]) => {
      try {
        checkManifest(P, m, exp);
      } catch (err) {
        expect(err).to.be.instanceOf(IndexMismatchError);
        return (err as IndexMismatchError).message;
      }
      return null;
    };

    it('accepts matching expectations, and a different search-time expansion', () => {
      expect(
        mismatch({
          model: fakeModel(dims),
          index: { type: 'hnsw', storage: 'f32', connectivity: 8, expansionAdd: 128, expansionSearch: 999 },
          corpus: { sha256: m.corpus.sha256, count: 20 },
        }),
      ).to.equal(null);
    });

    it('names the model hash that differs', () => {
      expect(mismatch({ model: fakeModel(dims, { sha256: 'b'.repeat(64), id: 'other' }) })).to.equal(
        'index at /r/index.usearch was built with model.sha256="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa (synthetic)", config says "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb (other)" — rebuild with `phase5 build --force`',
      );
    });

    it('names embedding settings, index parameters and the corpus', () => {
      expect(mismatch({ model: fakeModel(64) })).to.match(
        /built with model\.dims=32, config says 64 — rebuild with `phase5 build --force`/,
      );
      expect(mismatch({ model: fakeModel(dims, { passagePrefix: 'passage: ' }) })).to.match(
        /model\.passage_prefix="", config says "passage: "/,
      );
      expect(mismatch({ model: fakeModel(dims, { maxLength: 512 }) })).to.match(/model\.max_length=128, config says 512/);
      expect(mismatch({ model: fakeModel(dims, { pooling: 'cls' }) })).to.match(/model\.pooling="mean", config says "cls"/);
      expect(mismatch({ index: { type: 'exact' } })).to.match(/index\.type="hnsw", config says "exact"/);
      expect(mismatch({ index: { type: 'hnsw', connectivity: 16 } })).to.match(/index\.connectivity=8, config says 16/);
      expect(mismatch({ index: { type: 'hnsw', storage: 'i8' } })).to.match(/index\.storage="f32", config says "i8"/);
      expect(mismatch({ corpus: { sha256: 'c'.repeat(64) } })).to.match(
        /corpus\.sha256=[0-9a-f]{12}…, config says cccccccccccc… — rebuild/,
      );
      expect(mismatch({ corpus: { sha256: m.corpus.sha256, count: 21 } })).to.match(/corpus\.count=20, config says 21/);
    });

    it('does not treat a different query prefix as a reason to rebuild (it only affects queries)', () => {
      expect(mismatch({ model: fakeModel(dims, { queryPrefix: 'query: ' }) })).to.equal(null);
    });

    it('accepts the faiss type names: FlatIP = exact, HNSW / IVFFlat = hnsw', () => {
      expect(indexTypeFrom('FlatIP')).to.equal('exact');
      expect(indexTypeFrom('IVFFlat')).to.equal('hnsw');
      expect(resolveIndexParams({ type: 'HNSW' }).type).to.equal('hnsw');
      expect(mismatch({ index: { type: 'HNSW' } })).to.equal(null);
      expect(mismatch({ index: { type: 'FlatIP' } })).to.match(/index\.type="hnsw", config says "exact"/);
      expect(() => resolveIndexParams({ type: 'IVFPQ' })).to.throw(/index type must be "exact" \(FlatIP\) or "hnsw"/);
      expect(() => resolveIndexParams({ type: 'exact', storage: 'i8' })).to.throw(/storage "i8" needs index type "hnsw"/);
    });
  });

  describe('indexStatus (build-skip decisions)', () => {
    it('reports missing, ok and stale with the reason', async () => {
      const b = await build('status', clusteredUnitVectors(30, dims, 6));
      const corpus = await corpusExpectation(b.corpusPath);
      expect(indexStatus(path.join(tmp, 'none', 'index.usearch'), {})).to.deep.equal({
        status: 'missing',
        reason: `no index at ${path.join(tmp, 'none', 'index.usearch')}`,
      });
      expect(indexStatus(b.indexPath, { model: fakeModel(dims), index: { type: 'FlatIP' }, corpus }).status).to.equal('ok');
      const stale = indexStatus(b.indexPath, { model: fakeModel(dims, { maxLength: 512 }), corpus });
      expect(stale.status).to.equal('stale');
      expect((stale as { reason: string }).reason).to.match(/model\.max_length=128, config says 512/);
      truncateSync(b.indexPath, 100);
      const cut = indexStatus(b.indexPath, { model: fakeModel(dims), corpus });
      expect(cut.status).to.equal('stale');
      expect((cut as { reason: string }).reason).to.match(/size differs from the manifest/);
    });
  });
});
