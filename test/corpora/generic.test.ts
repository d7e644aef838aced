import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildGenericCorpus } from '../../src/corpora/generic';
import { readCorpusForIndex } from '../../src/index/corpus-file';
import { RAGRetriever } from '../../src/index/retriever';
import { MINILM, requireModel } from '../embed/models';
import { FIXTURES } from '../helpers/shared-data';

const GEN = path.join(FIXTURES, 'retrieval', 'generic');
const read = (f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('corpora/buildGenericCorpus', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'generic-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('folders of .txt/.md: chunks in the corpus.jsonl schema, headings recorded, other files ignored', async () => {
    const out = path.join(dir, 'corpus.jsonl');
    const s = await buildGenericCorpus({
      sources: [{ type: 'folder', path: path.join(GEN, 'notes') }],
      outPath: out,
      chunk: { size: 20, overlap: 5 },
    });
    const recs = read(out);
    expect(s.records).to.equal(recs.length);
    expect(Object.keys(recs[0]).slice(0, 5)).to.deep.equal(['text', 'source_uri', 'date', 'char_len', 'idx']);
    expect(recs.map((r) => r.idx)).to.deep.equal(recs.map((_, i) => i));
    expect(new Set(recs.map((r) => r.source_uri))).to.deep.equal(new Set(['notes/ch1.md', 'notes/sub/ch2.txt']));
    const md = recs.filter((r) => r.source_uri === 'notes/ch1.md');
    expect(md[0].heading).to.equal('Lecture 4: Transformers');
    expect(md.some((r) => r.heading === 'Positional encoding' && r.text.startsWith('## Positional encoding'))).to.equal(true);
    const src = readFileSync(path.join(GEN, 'notes', 'ch1.md'), 'utf8');
    for (const r of md) {
      expect(r.text).to.equal(src.slice(r.char_start, r.char_end));
      expect(r.tokens).to.be.at.most(20);
      expect(r.char_len).to.equal([...r.text].length);
      expect(r.date).to.equal(null);
      expect(r.sha256).to.match(/^[0-9a-f]{64}$/);
    }
    // The index reads it (date null, idx in order).
    let n = 0;
    for await (const r of readCorpusForIndex(out)) expect(r.idx).to.equal(n++);
    expect(n).to.equal(recs.length);
  });

  it('JSONL records: metadata copied, bad lines counted with file:line, near-duplicates dropped, date only when an integer', async () => {
    const out = path.join(dir, 'corpus.jsonl');
    const s = await buildGenericCorpus({
      sources: [{ type: 'jsonl', path: path.join(GEN, 'records.jsonl'), id_field: 'id', metadata_fields: ['course'] }],
      outPath: out,
    });
    const recs = read(out);
    expect(recs.map((r) => r.source_uri)).to.deep.equal(['records.jsonl#r1', 'records.jsonl#r5']);
    expect(recs[0]).to.deep.include({ date: 2024, course: 'NLP', chunk: 0 });
    expect(recs[1]).to.deep.include({ date: null, course: 'IR' });
    expect(s.duplicates).to.equal(1); // r4 differs from r1 only by punctuation
    expect(s.problems).to.deep.equal({ bad_line: 2, empty_text: 1, unreadable: 0, not_utf8: 0 });
    expect(s.examples.bad_line![0]).to.match(/records\.jsonl:3: not a JSON object/);
    expect(s.examples.bad_line![1]).to.match(/records\.jsonl:4: field "text" missing/);
    await buildGenericCorpus({ sources: [{ type: 'jsonl', path: path.join(GEN, 'records.jsonl') }], outPath: out, onBadLine: 'fail' }).then(
      () => expect.fail('should fail'),
      (e: Error) => expect(e.message).to.match(/records\.jsonl:3: not a JSON object/),
    );
  });

  it('chunks by the embedding tokenizer when given one', async function () {
    requireModel(this, MINILM);
    const out = path.join(dir, 'corpus.jsonl');
    const s = await buildGenericCorpus({
      sources: [{ type: 'folder', path: path.join(GEN, 'notes') }],
      outPath: out,
      chunk: { size: 24, overlap: 4 },
      tokenizerFile: path.join(MINILM.dir, 'tokenizer.json'),
    });
    expect(s.chunking.unit).to.equal('tokenizer');
    const words = await buildGenericCorpus({
      sources: [{ type: 'folder', path: path.join(GEN, 'notes') }],
      outPath: path.join(dir, 'w.jsonl'),
      chunk: { size: 24, overlap: 4 },
    });
    // WordPiece splits Arabic words into several pieces: more chunks than counting words.
    expect(s.records).to.be.greaterThan(words.records);
  });

  it('is byte-identical for the same input; a content change changes the sha256 and triggers a re-index', async function () {
    requireModel(this, MINILM);
    const notes = path.join(dir, 'notes');
    cpSync(path.join(GEN, 'notes'), notes, { recursive: true });
    const out = path.join(dir, 'corpus.jsonl');
    const a = await buildGenericCorpus({ sources: [{ type: 'folder', path: notes }], outPath: out, chunk: { size: 30, overlap: 5 } });
    const b = await buildGenericCorpus({ sources: [{ type: 'folder', path: notes }], outPath: out, chunk: { size: 30, overlap: 5 } });
    expect(b.corpusSha256).to.equal(a.corpusSha256);
    const indexPath = path.join(dir, 'index.usearch');
    const r = await RAGRetriever.open(
      { indexPath, corpusPath: out, embedding: { modelDir: MINILM.dir, threads: 1 } },
      { loadIndex: false },
    );
    try {
      const m1 = await r.buildIndex(out, indexPath, { showProgress: false });
      const m2 = await r.buildIndex(out, indexPath, { showProgress: false });
      expect(m2.created_at).to.equal(m1.created_at); // unchanged corpus: reused
      writeFileSync(path.join(notes, 'sub', 'ch2.txt'), 'نص جديد تماما عن الكرم والوفاء.\n');
      const c = await buildGenericCorpus({ sources: [{ type: 'folder', path: notes }], outPath: out, chunk: { size: 30, overlap: 5 } });
      expect(c.corpusSha256).to.not.equal(a.corpusSha256);
      const m3 = await r.buildIndex(out, indexPath, { showProgress: false });
      expect(m3.corpus.sha256).to.equal(c.corpusSha256);
      expect(m3.created_at).to.not.equal(m1.created_at);
      const [hits] = await r.retrieveMany(['نص جديد عن الكرم'], 1);
      expect(hits[0].source_uri).to.equal('notes/sub/ch2.txt');
    } finally {
      await r.close();
    }
  });

  it('fails clearly on a missing source or a corpus with no text', async () => {
    await buildGenericCorpus({ sources: [{ type: 'folder', path: path.join(dir, 'nope') }], outPath: path.join(dir, 'c.jsonl') }).then(
      () => expect.fail('should fail'),
      (e: Error) => expect(e.message).to.match(/nope does not exist/),
    );
    const empty = path.join(dir, 'empty');
    cpSync(path.join(GEN, 'notes', 'ignore.pdf'), path.join(empty, 'x.pdf'), { recursive: true });
    await buildGenericCorpus({ sources: [{ type: 'folder', path: empty }], outPath: path.join(dir, 'c.jsonl') }).then(
      () => expect.fail('should fail'),
      (e: Error) => expect(e.message).to.match(/no text found/),
    );
  });
});
