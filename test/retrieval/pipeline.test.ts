import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { createRetrievalPipeline, formatCitations, type PipelineChunk } from '../../src/retrieval/pipeline';
import { LexicalReranker, lexicalSimilarity } from '../../src/retrieval/rerank';
import { dedupDigest } from '../../src/retrieval/text';
import { fakeBase, RECORDS } from './fake-base';
import { crossEncoderDir } from './onnx-fixture';

// Real OCR_GS line (Yacqubi.Tarikh 000010) whose source units are RECORDS[6] and RECORDS[7].
const OCR = 'االتاصس اللف، وماأصعر الباب، وأفيق الطريق الي تيلق التاس انجاة..';
const VOCAL_QUERY = 'قال الشيخ ابو محمد ان الوفاء نور يهتدي به';

const strip = (c: PipelineChunk) => ({ text: c.text, source_uri: c.source_uri, score: c.score, rank: c.rank, idx: c.idx, date: c.date });

describe('retrieval/pipeline', () => {
  it('with every option off it returns exactly what the base retriever returns', async () => {
    const f = fakeBase(RECORDS);
    const p = await createRetrievalPipeline(f.base, {}, { store: f.store });
    const queries = [OCR, VOCAL_QUERY, 'وقال الأصمعي إن الصدق'];
    const got = await p.retrieveMany(queries, 3, 0.1);
    const want = await f.base.retrieveMany(queries, 3, 0.1);
    expect(got.map((l) => l.map(strip))).to.deep.equal(want);
    for (const c of got.flat()) {
      expect(c.embedding_score).to.equal(c.score);
      expect([c.lexical_score, c.rerank_score, c.context]).to.deep.equal([null, null, null]);
      expect(c.line).to.equal(RECORDS[c.idx].line); // from the store's `line` field
    }
    expect(p.formatForPrompt(got[1])).to.match(/^نصوص مرجعية صحيحة:\n1\. /);
  });

  it('script detection: lines with too few Arabic letters get no retrieval and are counted', async () => {
    const f = fakeBase(RECORDS);
    const p = await createRetrievalPipeline(f.base, { min_arabic_share: 0.9 }, { store: f.store });
    const [latin, mixed, arabic, empty] = await p.retrieveMany(['The quick brown fox', 'Page 12: قال الشيخ', VOCAL_QUERY, '  '], 2);
    expect(latin).to.deep.equal([]);
    expect(mixed).to.deep.equal([]);
    expect(arabic).to.have.length(2);
    expect(empty).to.deep.equal([]);
    expect(p.stats()).to.deep.include({ queries: 4, skippedScript: 3 });
  });

  it('dedup drops a vocalised copy of a better hit (SHA-256 of the normalised text) and fills k from the rest', async () => {
    const f = fakeBase(RECORDS);
    const plain = await f.base.retrieveMany([VOCAL_QUERY], 2);
    expect(plain[0].map((c) => c.idx)).to.have.members([0, 5]); // both copies on top
    const p = await createRetrievalPipeline(f.base, { dedup: true }, { store: f.store });
    const [hits] = await p.retrieveMany([VOCAL_QUERY], 2);
    expect(hits).to.have.length(2);
    expect(new Set(hits.map((c) => dedupDigest(c.text))).size).to.equal(2);
    expect(hits[0].idx).to.equal(plain[0][0].idx);
    expect(p.stats().deduplicated).to.equal(1);
  });

  it('lexical rerank: score = 0.7·cosine + 0.3·similarity, ordered by it; candidates from fetch_k', async () => {
    const f = fakeBase(RECORDS);
    const p = await createRetrievalPipeline(f.base, { rerank: { enabled: true }, fetch_k: 8 }, { store: f.store });
    const [hits] = await p.retrieveMany([OCR], 3);
    expect(hits).to.have.length(3);
    for (const c of hits) {
      expect(c.rerank_score).to.be.closeTo(lexicalSimilarity(OCR.trim(), c.text), 1e-12);
      expect(c.score).to.be.closeTo(0.7 * c.embedding_score + 0.3 * c.rerank_score!, 1e-12);
    }
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).to.be.at.least(hits[i].score);
    expect(hits.map((c) => c.rank)).to.deep.equal([1, 2, 3]);
    // With the weight on the reranker alone, the source units of the OCR line come first.
    const q = await createRetrievalPipeline(f.base, { rerank: { enabled: true, embedding_weight: 0 }, fetch_k: 8 }, { store: f.store });
    const [top] = await q.retrieveMany([OCR], 2);
    expect(top.map((c) => c.idx)).to.have.members([6, 7]);
  });

  it('cross-encoder without a usable model: the original order is kept and the reason recorded', async () => {
    const f = fakeBase(RECORDS);
    const want = await f.base.retrieveMany([OCR, VOCAL_QUERY], 3);
    for (const model_dir of [null, '/nonexistent/cross-encoder']) {
      const p = await createRetrievalPipeline(
        f.base,
        { rerank: { enabled: true, method: 'cross_encoder', model_dir }, fetch_k: 3 },
        { store: f.store },
      );
      expect(p.rerankStatus).to.deep.include({ method: 'cross_encoder', active: false });
      expect(p.rerankStatus!.reason).to.be.a('string').and.not.empty;
      const got = await p.retrieveMany([OCR, VOCAL_QUERY], 3);
      expect(got.map((l) => l.map(strip))).to.deep.equal(want);
      await p.close();
    }
  });

  it('a reranker that fails at scoring time leaves that query in retrieval order (counted)', async () => {
    const f = fakeBase(RECORDS);
    const failing = { name: 'boom', identity: 'boom', score: async () => Promise.reject(new Error('session died')), close: async () => {} };
    const p = await createRetrievalPipeline(f.base, { rerank: { enabled: true }, fetch_k: 3 }, { store: f.store, reranker: failing });
    const got = await p.retrieveMany([OCR], 3);
    expect(got.map((l) => l.map(strip))).to.deep.equal(await f.base.retrieveMany([OCR], 3));
    expect(p.stats().rerankErrors).to.equal(1);
  });

  it('cross-encoder with a model: scored pairs reorder the candidates (fixture model = passage length)', async () => {
    const dir = crossEncoderDir();
    try {
      const f = fakeBase(RECORDS);
      const p = await createRetrievalPipeline(
        f.base,
        { rerank: { enabled: true, method: 'cross_encoder', model_dir: dir, embedding_weight: 0 }, fetch_k: 8 },
        { store: f.store },
      );
      expect(p.rerankStatus).to.deep.include({ active: true, reason: null });
      const [hits] = await p.retrieveMany([VOCAL_QUERY], 8);
      const scores = hits.map((c) => c.rerank_score!);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      expect(hits.every((c) => c.score === c.rerank_score)).to.equal(true);
      await p.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('MMR replaces a near-duplicate in the top k by a different sentence; scores stay descending', async () => {
    const f = fakeBase(RECORDS);
    const plain = (await f.base.retrieveMany([VOCAL_QUERY], 3))[0].map((c) => c.idx);
    const p = await createRetrievalPipeline(
      f.base,
      { mmr: { enabled: true, lambda: 0.3 }, fetch_k: 8 },
      { store: f.store, vectors: f.vectors },
    );
    const [hits] = await p.retrieveMany([VOCAL_QUERY], 3);
    const ids = hits.map((c) => c.idx);
    expect(plain.slice(0, 2)).to.have.members([0, 5]);
    expect(ids.filter((i) => i === 0 || i === 5)).to.have.length(1);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).to.be.at.least(hits[i].score);
    const same = await createRetrievalPipeline(
      f.base,
      { mmr: { enabled: true, lambda: 1 }, fetch_k: 8 },
      { store: f.store, vectors: f.vectors },
    );
    expect((await same.retrieveMany([VOCAL_QUERY], 3))[0].map((c) => c.idx)).to.deep.equal(plain);
  });

  it('hybrid: a lexical match the dense side missed enters the results with its true cosine', async () => {
    // A "blind" encoder that always returns the first three B.Tarikh lines.
    const f = fakeBase(RECORDS, [0, 1, 2]);
    const p = await createRetrievalPipeline(
      f.base,
      { hybrid: { enabled: true }, fetch_k: 3 },
      { store: f.store, vectors: f.vectors, embedQueries: f.embedQueries },
    );
    const [hits] = await p.retrieveMany([OCR], 3);
    const src = hits.find((c) => c.idx === 6 || c.idx === 7);
    expect(src, 'source unit from the lexical side').to.not.equal(undefined);
    const qv = await f.embedQueries([OCR]);
    const dv = await f.vectors.get([src!.idx]);
    let dot = 0;
    for (let j = 0; j < 64; j++) dot += qv[j] * dv[j];
    expect(src!.embedding_score).to.be.closeTo(dot, 1e-6);
    expect(src!.lexical_score).to.be.within(0, 1);
    expect(p.stats().lexicalOnlyCandidates).to.be.greaterThan(0);
    // Weighted fusion with dense_weight 0 is lexical-only ranking.
    const lex = await createRetrievalPipeline(
      f.base,
      { hybrid: { enabled: true, fusion: 'weighted', dense_weight: 0 }, fetch_k: 3 },
      { store: f.store, vectors: f.vectors, embedQueries: f.embedQueries },
    );
    const [l] = await lex.retrieveMany([OCR], 2);
    expect(l.map((c) => c.idx)).to.have.members([6, 7]);
    expect(l[0].lexical_score).to.equal(1);
    // min_score applies to lexical-only candidates too.
    const strict = await createRetrievalPipeline(
      f.base,
      { hybrid: { enabled: true }, fetch_k: 3 },
      { store: f.store, vectors: f.vectors, embedQueries: f.embedQueries },
    );
    const [s] = await strict.retrieveMany([OCR], 3, 0.99);
    expect(s).to.deep.equal([]);
  });

  it('context window from the corpus: neighbours of the same source only, used by the prompt text', async () => {
    const f = fakeBase(RECORDS);
    const p = await createRetrievalPipeline(f.base, { context_window: { lines: 2, source: 'corpus' } }, { store: f.store });
    const [hits] = await p.retrieveMany(['وقال الأصمعي إن الوفاء زينة الرجال في المجالس'], 1);
    expect(hits[0].idx).to.equal(2);
    expect(hits[0].context).to.deep.equal({
      before: [RECORDS[0].text, RECORDS[1].text],
      after: [RECORDS[3].text, RECORDS[4].text],
      problem: null,
    });
    const [edge] = await p.retrieveMany([RECORDS[4].text], 1);
    expect(edge[0].context!.after).to.deep.equal([]); // idx 5 is another source
    const text = p.formatForPrompt(hits, 'plain');
    expect(text.startsWith(RECORDS[0].text.slice(0, 20))).to.equal(true);
    expect(text).to.include(RECORDS[2].text);
    // The window is cut to max_chars around the hit, neighbours whole.
    const q = await createRetrievalPipeline(f.base, { context_window: { lines: 2, source: 'corpus', max_chars: 110 } }, { store: f.store });
    const [cut] = await q.retrieveMany(['وقال الأصمعي إن الوفاء زينة الرجال في المجالس'], 1);
    expect(q.formatForPrompt(cut, 'plain')).to.equal(`${RECORDS[1].text} ${RECORDS[2].text}`);
  });

  it('budget: hits kept in rank order while their prompt text fits; ranks follow', async () => {
    const f = fakeBase(RECORDS);
    const all = (await f.base.retrieveMany([VOCAL_QUERY], 4))[0];
    const limit = [...all[0].text].length + [...all[1].text].length + 5;
    const p = await createRetrievalPipeline(f.base, { budget: { max_chars: limit } }, { store: f.store });
    const [hits] = await p.retrieveMany([VOCAL_QUERY], 4);
    expect(hits.map((c) => c.idx)).to.deep.equal(all.slice(0, 2).map((c) => c.idx));
    expect(hits.map((c) => c.rank)).to.deep.equal([1, 2]);
    expect(p.stats().droppedByBudget).to.equal(2);
    const t = await createRetrievalPipeline(
      f.base,
      { budget: { max_tokens: 12 } },
      { store: f.store, countTokens: (s) => s.split(' ').length },
    );
    const [th] = await t.retrieveMany([VOCAL_QUERY], 4);
    expect(th.reduce((a, c) => a + c.text.split(' ').length, 0)).to.be.at.most(12);
    expect(th.length).to.be.greaterThan(0);
  });

  it('citations: plain style numbers hits [#i]; footnotes name source and line', async () => {
    const f = fakeBase(RECORDS);
    const p = await createRetrievalPipeline(f.base, { citations: true }, { store: f.store });
    const [hits] = await p.retrieveMany([OCR], 2);
    const lines = p.formatForPrompt(hits, 'plain').split('\n');
    expect(lines[0]).to.equal(`[#1] ${hits[0].text}`);
    expect(lines[1]).to.equal(`[#2] ${hits[1].text}`);
    expect(formatCitations(hits)).to.equal(hits.map((c, i) => `[${i + 1}] ${c.source_uri}, line ${c.line}`).join('\n'));
    expect(p.formatForPrompt(hits, 'numbered_arabic')).to.not.include('[#');
    expect(p.formatForPrompt([], 'plain')).to.equal('');
  });

  it('is deterministic, and the fingerprint changes with the options', async () => {
    const f = fakeBase(RECORDS);
    const opts = { hybrid: { enabled: true }, rerank: { enabled: true }, mmr: { enabled: true }, dedup: true, fetch_k: 8 } as const;
    const deps = { store: f.store, vectors: f.vectors, embedQueries: f.embedQueries };
    const a = await createRetrievalPipeline(f.base, opts, deps);
    const b = await createRetrievalPipeline(f.base, opts, deps);
    const qs = [OCR, VOCAL_QUERY, RECORDS[3].text];
    expect(await a.retrieveMany(qs, 3)).to.deep.equal(await b.retrieveMany(qs, 3));
    expect(a.fingerprint).to.equal(b.fingerprint);
    const c = await createRetrievalPipeline(f.base, { ...opts, mmr: { enabled: true, lambda: 0.6 } }, deps);
    expect(c.fingerprint).to.not.equal(a.fingerprint);
    expect(new LexicalReranker().identity).to.match(/^lexical:/);
  });

  it('batches: one base call per retrieveMany, whatever the number of queries', async () => {
    const f = fakeBase(RECORDS);
    const p = await createRetrievalPipeline(f.base, { rerank: { enabled: true } }, { store: f.store });
    await p.retrieveMany([OCR, VOCAL_QUERY, RECORDS[2].text, RECORDS[3].text], 2);
    expect(f.base.calls).to.equal(1);
  });

  it('refuses configurations it cannot serve, naming what is missing', async () => {
    const f = fakeBase(RECORDS);
    await createRetrievalPipeline(f.base, { hybrid: { enabled: true } }).then(
      () => expect.fail('should throw'),
      (e: Error) => expect(e.message).to.match(/hybrid retrieval .* need the corpus/),
    );
    await createRetrievalPipeline(f.base, { context_window: { lines: 1, source: 'openiti' } }, { store: f.store }).then(
      () => expect.fail('should throw'),
      (e: Error) => expect(e.message).to.match(/OpenITI root/),
    );
    await createRetrievalPipeline(f.base, { mmr: { enabled: true } }, { store: f.store }).then(
      () => expect.fail('should throw'),
      (e: Error) => expect(e.message).to.match(/MMR .* need corpus vectors/),
    );
  });
});
