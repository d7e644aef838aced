/**
 * The pipeline on a real RAGRetriever (MiniLM, exact index over fixture sentences): the wiring to the
 * real API — sentence list for the lexical index, the index's vector matrix for MMR and hybrid cosines,
 * the model for query vectors — with no deps passed.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RAGRetriever } from '../../src/index/retriever';
import { writeJsonlAtomic } from '../../src/io/jsonl';
import { createRetrievalPipeline } from '../../src/retrieval/pipeline';
import { readSourceLines } from '../../src/retrieval/source-lines';
import { MINILM, requireModel } from '../embed/models';
import { FIXTURES } from '../helpers/shared-data';

describe('retrieval/pipeline on a real RAGRetriever', function () {
  this.timeout(120_000);
  let dir: string;
  let retriever: RAGRetriever;
  let texts: string[];

  before(async function () {
    requireModel(this, MINILM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'pipe-real-'));
    const file = path.join(
      FIXTURES,
      'openiti',
      'corpus',
      'data',
      '0200AuthorB',
      '0200AuthorB.Tarikh',
      '0200AuthorB.Tarikh.Fix004-ara1.completed',
    );
    const lines = await readSourceLines(file);
    texts = lines.map((l) => l.text);
    const corpus = path.join(dir, 'corpus.jsonl');
    writeJsonlAtomic(
      corpus,
      lines.map((l, idx) => ({ text: l.text, source_uri: 'B.Tarikh', date: 200, char_len: [...l.text].length, idx, line: l.line })),
    );
    retriever = await RAGRetriever.open(
      { indexPath: path.join(dir, 'index.usearch'), corpusPath: corpus, embedding: { modelDir: MINILM.dir, threads: 1 } },
      { loadIndex: false },
    );
    await retriever.buildIndex(corpus, undefined, { showProgress: false });
  });
  after(async () => {
    await retriever?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('options off: identical to RAGRetriever.retrieveMany', async () => {
    const p = await createRetrievalPipeline(retriever, {});
    const qs = [texts[3], 'وقال الاصمعي ان الصدق خير'];
    const got = await p.retrieveMany(qs, 3);
    const want = await retriever.retrieveMany(qs, 3);
    expect(
      got.map((l) => l.map(({ text, source_uri, score, rank, idx, date }) => ({ text, source_uri, score, rank, idx, date }))),
    ).to.deep.equal(want);
  });

  it('hybrid + rerank + MMR + dedup + context window from the corpus, all loaded from the index files', async () => {
    const p = await createRetrievalPipeline(retriever, {
      hybrid: { enabled: true },
      rerank: { enabled: true },
      mmr: { enabled: true, lambda: 0.7 },
      dedup: true,
      context_window: { lines: 1, source: 'corpus' },
      fetch_k: 10,
    });
    // An OCR-style corruption of texts[2] (letters swapped, word merged).
    const noisy = texts[2].replace('الأصمعي', 'الاصمعى').replace('زينة', 'ز ينه').replace(' في ', 'في ');
    const [hits] = await p.retrieveMany([noisy], 3);
    expect(hits[0].idx).to.equal(2);
    expect(hits[0].context!.before).to.deep.equal([texts[1]]);
    expect(hits[0].context!.after).to.deep.equal([texts[3]]);
    expect(hits[0].line).to.equal(10);
    for (const c of hits) {
      expect(c.embedding_score).to.be.within(0, 1);
      expect(c.lexical_score).to.be.within(0, 1);
      expect(c.rerank_score).to.be.within(0, 1);
    }
    await p.close();
  });
});
