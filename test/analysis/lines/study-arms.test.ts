/**
 * The Lines view, examples and error classes over the study arms (analysis/lines/study-arms.ts via the analyze stage):
 * the arms-only report in <results>/study/ (lines of the baseline arm, per-line CER of every arm checked by hand,
 * each arm's own retrieved sentences, guard and raw output, the upper bound marked), and the Phase 5 report with
 * the arms joining rag / zero_shot without a second `rag`.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ArmsAnalysis } from '../../../analysis/study/arms';
import { run } from '../../../analysis/stage';
import { ARM_LINES, INPUT_ONLY, analyzeArmsLinesTree } from '../arms-fixture';
import { writeStudy } from '../helpers';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Json;
const lineOf = (doc: Json, id: string) => (doc.lines as Json[]).find((l) => l.sample_id === id)!;
const cers = (doc: Json, id: string) =>
  Object.fromEntries(Object.entries(lineOf(doc, id).arms as Record<string, Json | null>).map(([a, x]) => [a, x && x.cer]));

describe('analysis/arms-lines: the Lines view over every study arm', function () {
  this.timeout(120000);
  let root: string;
  let study: string;
  let lines: Json;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'arms-lines-'));
    await analyzeArmsLinesTree(root, { D1: { excluded: true, sourcePattern: '0276IbnQutayba.Adab*' } });
    study = path.join(root, 'study');
    lines = read(path.join(study, 'lines.json'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('lists every line of the baseline arm (its inference input, then the corrections) with every analysed arm', () => {
    expect(lines.meta.arms).to.deep.equal([
      { name: 'oracle', retrieval: 'gold_query', upper_bound: true },
      { name: 'rag', retrieval: 'dense', upper_bound: false },
      { name: 'rag_k1', retrieval: 'dense', upper_bound: false },
      { name: 'zero_shot', retrieval: 'none', upper_bound: false },
    ]);
    expect(lines.meta.baseline).to.equal('zero_shot');
    expect(lines.meta.bands).to.deep.equal(['0–2%', '2–5%', '5–10%', '10–20%', '>20%']);
    expect(lines.lines.map((l: Json) => `${l.dataset}/${l.sample_id}`)).to.deep.equal(['D1/l1', 'D1/l2', 'D1/l3', 'D1/l5', 'D2/m1']);
    const l5 = lineOf(lines, INPUT_ONLY.id);
    expect(l5.ocr.cer).to.equal(0.1);
    expect(Object.values(l5.arms).every((x) => x === null)).to.equal(true);
  });

  it('has the per-line CER of each arm as worked out by hand, in the OCR-CER bands', () => {
    expect(cers(lines, 'l1')).to.deep.equal({ oracle: 0, rag: 0, rag_k1: 0.2, zero_shot: 0 });
    expect(cers(lines, 'l3')).to.deep.equal({ oracle: 0, rag: 0.2, rag_k1: 0.3, zero_shot: 0.3 });
    expect(cers(lines, 'm1')).to.deep.equal({ oracle: 0, rag: 0.02, rag_k1: 0.02, zero_shot: 0.02 });
    expect(lines.lines.map((l: Json) => l.band)).to.deep.equal(['10–20%', '5–10%', '>20%', '10–20%', '2–5%']);
    expect(lineOf(lines, 'l3').arms.rag.edits).to.equal(2);
  });

  it("sums each arm's line edits to the CER arms.json reports for it", () => {
    const arms = read(path.join(study, 'arms.json')) as ArmsAnalysis;
    for (const a of arms.arms) {
      const mine = (lines.lines as Json[]).filter((l) => l.arms[a.name]);
      const edits = mine.reduce((s, l) => s + l.arms[a.name].edits, 0);
      const chars = mine.reduce((s, l) => s + l.ref_chars, 0);
      expect(Number((edits / chars).toFixed(6)), a.name).to.equal(a.cer);
      expect(mine.length, a.name).to.equal(a.lines);
    }
  });

  it("shows each arm's own retrieved sentences, none for a zero-shot arm, and the guard with the raw output", () => {
    const l2 = lineOf(lines, 'l2');
    expect(l2.arms.rag.retrieval.map((h: Json) => [h.score, h.source_uri, h.text, h.from_source])).to.deep.equal([
      [0.91, '0255Jahiz.rag.X-ara1', 'قال الشيخ l2', false],
      [0.5, '0276IbnQutayba.Adab.Y-ara1', 'حدثنا أبو بكر', true],
    ]);
    expect(l2.arms.oracle.retrieval[0].source_uri).to.equal('0255Jahiz.oracle.X-ara1');
    expect(l2.arms.zero_shot.retrieval).to.equal(null);
    expect([l2.arms.rag.guard, l2.arms.rag.raw]).to.deep.equal(['trimmed', `Here: ${ARM_LINES.D1[1].gt}`]);
    expect([lineOf(lines, 'm1').arms.rag.guard, lineOf(lines, 'm1').arms.rag.raw]).to.deep.equal(['fell_back:edit_ratio', 'zzz']);
    expect([l2.arms.rag_k1.guard, l2.arms.rag_k1.raw]).to.deep.equal([null, null]);
    expect(lines.meta.datasets).to.deep.equal([
      { name: 'D1', source_excluded: true },
      { name: 'D2', source_excluded: null },
    ]);
  });

  it('writes error_classes.json for OCR and every arm', () => {
    const ec = read(path.join(study, 'error_classes.json'));
    expect(Object.keys(ec.errors)).to.deep.equal(['ocr', 'oracle', 'rag', 'rag_k1', 'zero_shot']);
    expect(ec.meta.lines).to.deep.equal({ ocr: 5, oracle: 4, rag: 4, rag_k1: 4, zero_shot: 4 });
    const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
    expect(total(ec.errors.ocr)).to.equal(1 + 1 + 3 + 1 + 1);
    expect(total(ec.errors.oracle)).to.equal(0);
  });

  it('the arms-only report has the Lines view, the error classes (table + chart) and per-arm examples (texts in report.html, a table in report.md)', () => {
    const md = readFileSync(path.join(study, 'report.md'), 'utf8');
    for (const h of ['## Arms', '## Errors by class', '## Lines', '## Examples: largest changes per arm']) expect(md).to.include(h);
    // report.md: the lines by name and ΔCER; their texts are in report.html.
    expect(md).to.include('| rag_k1 | regression 1 | D1 / l1 | +20.00 pp | 20.00% | zero_shot 0.00% |');
    expect(md).to.not.include('- Guard: trimmed');
    const html = readFileSync(path.join(study, 'report.html'), 'utf8');
    expect(html).to.include('rag_k1: 1 largest regressions (vs zero_shot)');
    expect(html).to.include('oracle † (upper bound): 3 largest improvements (vs zero_shot)');
    expect(html).to.include('zero_shot: 1 largest improvements (vs OCR)');
    expect(html).to.include(`Guard: trimmed; raw model output: Here: ${ARM_LINES.D1[1].gt}`);
    expect(html).to.include('id="lines-view"').and.include('id="chart-error_classes"').and.include('† marks an upper bound (oracle');
    expect(existsSync(path.join(study, 'charts', 'error_classes.svg'))).to.equal(true);
  });

  it('lines: false removes the documents and the view', async () => {
    const r = await run(
      {
        ragDir: path.join(root, 'phase5'),
        bootstrap: { iterations: 20, seed: 1 },
        report: { png: false },
        logFile: false,
        lines: false,
        arms: { resultsDir: root, baseline: 'zero_shot' },
      },
      {},
      'silent',
    );
    expect(existsSync(path.join(study, 'lines.json'))).to.equal(false);
    expect(existsSync(path.join(study, 'error_classes.json'))).to.equal(false);
    expect(existsSync(path.join(study, 'charts', 'error_classes.svg'))).to.equal(false);
    expect(readFileSync(r.report, 'utf8')).to.not.include('id="lines-view"');
  });

  it('with Phase 5 corrections, the arms join rag / zero_shot (a study arm named rag is not shown twice), ΔCER vs the study baseline', async () => {
    const { ragDir, baselineDir } = writeStudy(root, {
      datasets: { D1: ARM_LINES.D1.map((l) => ({ ...l })) },
      phase5: (p) => ({ corrected: p.gt }),
      phase2: (p) => ({ corrected: p.ocr }),
    });
    const r = await run(
      {
        ragDir,
        baselineDir,
        bootstrap: { iterations: 20, seed: 1 },
        report: { png: false },
        logFile: false,
        arms: { resultsDir: root, baseline: 'rag_k1' },
      },
      {},
      'silent',
    );
    const doc = read(path.join(ragDir, 'lines.json'));
    expect(doc.meta.arms.map((a: Json) => a.name)).to.deep.equal(['rag', 'zero_shot', 'oracle', 'rag_k1']);
    expect(doc.meta.baseline).to.equal('rag_k1');
    expect(doc.meta.bands).to.deep.equal(['0–2%', '2–5%', '5–10%', '10–20%', '>20%']);
    expect(cers(doc, 'l1')).to.deep.equal({ rag: 0, zero_shot: 0.1, oracle: 0, rag_k1: 0.2 });
    expect(r.warnings.filter((w) => w.startsWith('study arm')).map((w) => w.slice(0, 17))).to.deep.equal([
      'study arm "rag" h',
      'study arm "zero_s',
    ]);
    expect(readFileSync(path.join(ragDir, 'report.md'), 'utf8')).to.include('## Arms');
    expect(readFileSync(path.join(ragDir, 'report.html'), 'utf8')).to.include('oracle † (upper bound): 3 largest improvements (vs rag_k1)');
  });
});
