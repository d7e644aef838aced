/**
 * End to end on real data, kept small: 50 OCR_GS lines per golden book, no slice-wide distractors (the
 * bench adds them), MiniLM, three configurations. Checks the golden set, the files and that the numbers
 * are consistent with the per-line ranks; the full comparison is `bench/eval-retrieval.ts`.
 */
import { expect } from 'chai';
import { compile } from 'vega-lite';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { evalRetrieval, formatEvalTable } from '../../src/eval/eval-retrieval';
import { MINILM, requireModel } from '../embed/models';
import { OCR_GS_ROOT, OPENITI_ROOT, requireSharedData } from '../helpers/shared-data';

describe('eval/evalRetrieval on the OCR_GS golden set (small)', function () {
  this.timeout(300_000);
  let dir: string;
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('locates gold lines, builds the corpus and index, scores configurations and writes table + chart', async function () {
    requireSharedData(this, 'openiti');
    requireSharedData(this, 'ocr-gs');
    requireModel(this, MINILM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'eval-ret-'));
    const s = await evalRetrieval({
      openitiRoot: OPENITI_ROOT,
      ocrGsRoot: OCR_GS_ROOT,
      outDir: dir,
      models: [{ name: 'minilm', modelDir: MINILM.dir, threads: 1 }],
      configs: [
        { name: 'dense', model: 'minilm', pipeline: {} },
        { name: 'lexical', model: 'minilm', pipeline: { hybrid: { enabled: true, fusion: 'weighted', dense_weight: 0 } } },
        { name: 'hybrid + rerank', model: 'minilm', pipeline: { hybrid: { enabled: true }, rerank: { enabled: true } } },
      ],
      golden: { linesPerBook: 50, distractors: 0, sameBookSample: 20, window: 1 },
      maxQueries: 50,
      fetchK: 20,
      progressMode: 'silent',
    });
    const g = s.golden;
    expect(g.lines).to.equal(100);
    expect(g.books.map((b) => b.sources)).to.deep.equal([
      ['0276IbnQutaybaDinawari.AdabKatib.Shamela0026349-ara1'],
      ['0292Yacqubi.Tarikh.JK001493-ara1'],
    ]);
    // Most gold lines are found in their source (measured: ~88 % of all 1,840 lines).
    expect(g.evaluable).to.be.greaterThan(70);
    expect(Object.values(g.by_status).reduce((a, b) => a + b, 0)).to.equal(100);
    expect(s.queries).to.equal(50);
    expect(g.corpus.distractors).to.equal(0);

    const golden = readFileSync(s.files.golden, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const ev = golden.filter((l) => l.status === 'evaluable');
    for (const l of ev) {
      expect(l.quality).to.be.at.least(0.85);
      expect(l.relevant.length).to.be.greaterThan(0);
    }
    expect(s.results.map((r) => r.config)).to.deep.equal(['dense', 'lexical', 'hybrid + rerank']);
    const lines = readFileSync(s.files.lines, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const r of s.results) {
      const mine = lines.filter((l) => l.config === r.config);
      expect(mine).to.have.length(50);
      const hit3 = mine.filter((l) => l.first_relevant_rank !== null && l.first_relevant_rank <= 3).length;
      expect(r.recall['@3']).to.be.closeTo(hit3 / 50, 1e-12);
      expect(r.recall['@1']).to.be.at.most(r.recall['@3']);
      expect(r.recall['@3']).to.be.at.most(r.recall['@10']);
    }
    // The character n-gram side finds OCR lines' sources far better than an English-only encoder.
    const [dense, lexical] = s.results;
    expect(lexical.recall['@3']).to.be.greaterThan(dense.recall['@3']);
    expect(lexical.recall['@3']).to.be.greaterThan(0.8);
    const chart = JSON.parse(readFileSync(s.files.chart, 'utf8'));
    expect(chart.data.values).to.have.length(3 * 4);
    expect(chart.mark.type).to.equal('bar');
    expect(() => compile(chart)).to.not.throw();
    expect(existsSync(path.join(dir, 'cache', 'minilm', 'index.manifest.json'))).to.equal(true);
    expect(formatEvalTable(s)).to.match(/\| minilm \| hybrid \+ rerank \| 0\.\d{3} \|/);
  });
});
