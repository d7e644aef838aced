import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Embedder } from '../../src/embed/embedder';
import { embedCorpusToVectors, type BatchReport } from '../../src/index/build';
import { MINILM, requireModel } from '../embed/models';
import { generatedArabicSentences, writeCorpus } from './synthetic';

function readVectors(file: string): Float32Array {
  const b = readFileSync(file);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

describe('index/build: resumable corpus embedding (MiniLM)', function () {
  let tmp: string;
  let emb: Embedder;
  let corpusPath: string;
  let full: Float32Array;
  const texts = generatedArabicSentences(80, 5);

  before(async function () {
    requireModel(this, MINILM);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'embed-corpus-'));
    emb = await Embedder.load({ modelDir: MINILM.dir, threads: 2, batchSize: 8 });
    corpusPath = writeCorpus(path.join(tmp, 'corpus.jsonl'), texts);
    const vectorsPath = path.join(tmp, 'full.f32.partial');
    const reports: BatchReport[] = [];
    const res = await embedCorpusToVectors({
      corpusPath,
      vectorsPath,
      embedder: emb,
      chunkRows: 16,
      onBatch: (r) => void reports.push(r),
      progressMode: 'silent',
    });
    expect(res).to.include({ rows: 80, totalRows: 80, dims: 384, resumedFrom: 0 });
    expect(reports.map((r) => r.rowsEmbedded)).to.deep.equal([16, 32, 48, 64, 80]);
    expect(reports.every((r) => r.totalRows === 80)).to.equal(true);
    full = readVectors(vectorsPath);
  });
  after(async () => {
    await emb?.dispose();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('appends raw float32 rows in corpus order (row i = embedding of sentence i)', async () => {
    expect(full.length).to.equal(80 * 384);
    const direct = await emb.embedPassages([texts[3], texts[77]]);
    for (const [k, i] of [
      [0, 3],
      [1, 77],
    ]) {
      for (let j = 0; j < 384; j++) expect(full[i * 384 + j]).to.be.closeTo(direct[k * 384 + j], 1e-5);
    }
  });

  it('resumes a killed build from the last complete row, cutting a partial row, with the same vectors', async () => {
    const vectorsPath = path.join(tmp, 'resume.f32.partial');
    const ac = new AbortController();
    let err: Error | undefined;
    await embedCorpusToVectors({
      corpusPath,
      vectorsPath,
      embedder: emb,
      chunkRows: 16,
      progressMode: 'silent',
      signal: ac.signal,
      onBatch: (r) => {
        if (r.rowsEmbedded >= 32) ac.abort();
      },
    }).catch((e: Error) => (err = e));
    expect(err?.name).to.equal('AbortError');
    expect(statSync(vectorsPath).size).to.equal(32 * 384 * 4);
    appendFileSync(vectorsPath, Buffer.alloc(700, 1)); // a crash in the middle of writing row 33

    const reports: number[] = [];
    const res = await embedCorpusToVectors({
      corpusPath,
      vectorsPath,
      embedder: emb,
      chunkRows: 16,
      startRow: 32,
      progressMode: 'silent',
      onBatch: (r) => void reports.push(r.rowsEmbedded),
    });
    expect(res).to.include({ rows: 80, resumedFrom: 32 });
    expect(reports).to.deep.equal([48, 64, 80]);
    const got = readVectors(vectorsPath);
    expect(got.length).to.equal(full.length);
    let maxDiff = 0;
    for (let i = 0; i < got.length; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i] - full[i]));
    expect(maxDiff).to.be.below(1e-5);
  });

  it('queues the next chunk on the sessions before writing the one before it, and writes them in order', async () => {
    const vectorsPath = path.join(tmp, 'overlap.f32.partial');
    const events: string[] = [];
    const spy = Object.create(emb) as Embedder;
    let calls = 0;
    spy.embedPassages = (chunk, opts) => {
      events.push(`embed ${calls++} (${chunk.length})`);
      return emb.embedPassages(chunk, opts);
    };
    await embedCorpusToVectors({
      corpusPath,
      vectorsPath,
      embedder: spy,
      chunkRows: 32,
      progressMode: 'silent',
      onBatch: (r) => void events.push(`written ${r.rowsEmbedded}`),
    });
    expect(events).to.deep.equal(['embed 0 (32)', 'embed 1 (32)', 'written 32', 'embed 2 (16)', 'written 64', 'written 80']);
    expect(readVectors(vectorsPath)).to.deep.equal(full);
  });

  it('trusts the file over a stale startRow', async () => {
    const vectorsPath = path.join(tmp, 'stale.f32.partial');
    const ac = new AbortController();
    await embedCorpusToVectors({
      corpusPath,
      vectorsPath,
      embedder: emb,
      chunkRows: 16,
      progressMode: 'silent',
      signal: ac.signal,
      onBatch: (r) => {
        if (r.rowsEmbedded >= 48) ac.abort();
      },
    }).catch(() => undefined);
    const res = await embedCorpusToVectors({ corpusPath, vectorsPath, embedder: emb, chunkRows: 16, startRow: 16, progressMode: 'silent' });
    expect(res.resumedFrom).to.equal(48);
  });

  it('does not resume vectors made by another model setting or from another corpus', async () => {
    const vectorsPath = path.join(tmp, 'other.f32.partial');
    const ac = new AbortController();
    await embedCorpusToVectors({
      corpusPath,
      vectorsPath,
      embedder: emb,
      chunkRows: 16,
      progressMode: 'silent',
      signal: ac.signal,
      onBatch: () => ac.abort(),
    }).catch(() => undefined);
    const prefixed = await Embedder.load({ modelDir: MINILM.dir, threads: 2, passagePrefix: 'passage: ' });
    try {
      let err: Error | undefined;
      await embedCorpusToVectors({ corpusPath, vectorsPath, embedder: prefixed, progressMode: 'silent' }).catch((e: Error) => (err = e));
      expect(err?.message).to.match(
        /partial vectors .*other\.f32\.partial cannot be resumed: it was embedded with another model or settings .* — delete it or rebuild with `phase5 build --force`/,
      );
    } finally {
      await prefixed.dispose();
    }
    const changed = writeCorpus(path.join(tmp, 'changed', 'corpus.jsonl'), texts.slice(0, 79));
    let err: Error | undefined;
    await embedCorpusToVectors({ corpusPath: changed, vectorsPath, embedder: emb, progressMode: 'silent' }).catch((e: Error) => (err = e));
    expect(err?.message).to.match(/cannot be resumed: the corpus changed since/);
    const res = await embedCorpusToVectors({ corpusPath: changed, vectorsPath, embedder: emb, restart: true, progressMode: 'silent' });
    expect(res).to.include({ resumedFrom: 0, rows: 79 });
  });

  it('refuses a second writer on the same partial file, and takes over the lock of a dead process', async () => {
    const vectorsPath = path.join(tmp, 'locked.f32.partial');
    const first = embedCorpusToVectors({ corpusPath, vectorsPath, embedder: emb, chunkRows: 16, progressMode: 'silent' });
    let err: Error | undefined;
    await embedCorpusToVectors({ corpusPath, vectorsPath, embedder: emb, progressMode: 'silent' }).catch((e: Error) => (err = e));
    expect(err?.message).to.match(/locked\.f32\.partial is being written by another writer in this process/);
    expect((await first).rows).to.equal(80);
    expect(existsSync(`${vectorsPath}.lock`)).to.equal(false);
    writeFileSync(`${vectorsPath}.lock`, '999999999'); // no such process
    expect((await embedCorpusToVectors({ corpusPath, vectorsPath, embedder: emb, progressMode: 'silent' })).resumedFrom).to.equal(80);
  });

  it('names file, line and field for a corpus record with a wrong idx', async () => {
    const bad = path.join(tmp, 'bad.jsonl');
    writeFileSync(
      bad,
      [0, 1, 3].map((idx) => JSON.stringify({ text: texts[idx], source_uri: 'x', date: 1, char_len: 5, idx })).join('\n') + '\n',
    );
    let err: Error | undefined;
    await embedCorpusToVectors({ corpusPath: bad, vectorsPath: path.join(tmp, 'bad.f32'), embedder: emb, progressMode: 'silent' }).catch(
      (e: Error) => (err = e),
    );
    expect(err?.message).to.equal(`${bad}:3: field "idx" is 3 but this is record 2; idx must count 0, 1, 2, … in file order`);
  });
});
