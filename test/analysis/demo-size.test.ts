/**
 * A study the size of the demo (5 books × 6 lines: one cluster per book) through the analyze stage, both
 * analyses at once (Phase 5 vs Phase 2 documents and the study arms): no JSON output holds a zero-width interval
 * around a non-zero estimate, every figure without an interval says why, each output warns once, and the
 * report and CLI summary say the study is too small for intervals (docs/statistics.md "Too few clusters").
 */
import Ajv from 'ajv';
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../../analysis/stage';
import { summarizeResult } from '../../bin/cli/summary';
import { REPO_ROOT } from '../helpers/shared-data';
import { writeStudy, type Pair } from './helpers';

const BOOKS = ['A', 'B', 'C', 'D', 'E'];
const GOLD = 'abcdefghijklmnopqrst';

/** Six lines per book; the OCR has 1–3 wrong letters at the end. */
function bookLines(book: string): Pair[] {
  return Array.from({ length: 6 }, (_, i) => ({
    id: `${book}${i}`,
    gt: GOLD,
    ocr: GOLD.slice(0, 20 - 1 - (i % 3)) + 'X'.repeat(1 + (i % 3)),
  }));
}

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

function writeArm(root: string, name: string, prompt: 'rag' | 'zero_shot', correct: (p: Pair, i: number) => string): void {
  const dir = path.join(root, 'arms', name);
  mkdirSync(dir, { recursive: true });
  const retrieval = { mode: prompt === 'rag' ? 'dense' : 'none', top_k: prompt === 'rag' ? 3 : 0, fingerprint: `fp-${name}` };
  writeFileSync(path.join(dir, 'arm.json'), JSON.stringify({ name, prompt, retrieval, upper_bound: false, model: 'm', guard: null }));
  const recs: unknown[] = [];
  const inputs: unknown[] = [];
  for (const book of BOOKS) {
    bookLines(book).forEach((p, i) => {
      const base = { sample_id: p.id, dataset: book, ocr_text: p.ocr, gt_text: p.gt };
      inputs.push({ ...base, prompt_type: 'rag', prompt_version: 'p5v1', retrieval_context: '', retrieved_k: 0, retrieval_scores: [] });
      recs.push({ ...base, prompt_type: prompt, prompt_version: 'v1', model: 'm', corrected_text: correct(p, i), raw_output: '' });
      Object.assign(recs[recs.length - 1] as object, { latency_ms: 1, prompt_tokens: 1, completion_tokens: 1, error: null });
    });
  }
  writeFileSync(path.join(dir, 'corrections.jsonl'), jsonl(recs));
  writeFileSync(path.join(dir, 'inference_input.jsonl'), jsonl(inputs));
}

/** Every JSON file under `dir`. */
function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? jsonFiles(p) : e.name.endsWith('.json') ? [p] : [];
  });
}

/** Paths of two-number arrays under an interval key (ci, ci95, cer_ci, cer_ci95.ocr…) whose ends are equal and not 0. */
function zeroWidthIntervals(node: unknown, at: string, inCi: boolean, out: string[]): string[] {
  if (Array.isArray(node)) {
    if (inCi && node.length === 2 && node.every((x) => typeof x === 'number') && node[0] === node[1] && node[0] !== 0) out.push(at);
    else node.forEach((x, i) => zeroWidthIntervals(x, `${at}[${i}]`, false, out));
  } else if (node !== null && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) zeroWidthIntervals(v, `${at}.${k}`, inCi || /(^|_)ci(95)?(_|$)/.test(k), out);
  return out;
}

describe('a demo-sized study (5 books × 6 lines) through the analyze stage', function () {
  this.timeout(120000);
  let root: string;
  let result: Awaited<ReturnType<typeof run>>;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'demo-size-'));
    const datasets = Object.fromEntries(BOOKS.map((b) => [b, bookLines(b)]));
    // Phase 5 fixes two lines of three and breaks the third; Phase 2 leaves the OCR: non-zero deltas everywhere.
    const fix = (p: Pair, i: number) => (i % 3 === 2 ? p.ocr.slice(0, 15) : p.gt);
    const { ragDir, baselineDir } = writeStudy(root, {
      datasets,
      phase5: (p, i) => ({ corrected: fix(p, i) }),
      phase2: (p) => ({ corrected: p.ocr }),
    });
    writeArm(root, 'zero_shot', 'zero_shot', (p) => p.ocr);
    writeArm(root, 'rag', 'rag', fix);
    writeArm(root, 'rag_same', 'rag', (p) => p.ocr); // agrees with the baseline on every line
    result = await run(
      {
        ragDir,
        baselineDir,
        bootstrap: { iterations: 200, seed: 1 },
        logFile: false,
        report: { png: false },
        maxFailedShare: 1,
        arms: { resultsDir: root, baseline: 'zero_shot' },
      },
      {},
      'silent',
    );
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('no JSON file holds a zero-width CI around a non-zero estimate', () => {
    const files = jsonFiles(root);
    expect(files.map((f) => path.relative(root, f))).to.include.members([
      'phase5/A/comparison_vs_phase2.json',
      'phase5/comparison.json',
      'study/arms.json',
      'study/provenance.json',
    ]);
    const bad = files.flatMap((f) => zeroWidthIntervals(JSON.parse(readFileSync(f, 'utf8')), path.relative(root, f), false, []));
    expect(bad).to.deep.equal([]);
    // The check can fail: a zero-width interval is found where there is one.
    expect(zeroWidthIntervals({ delta_cer: { ci95: [0.05, 0.05] } }, 'x', false, [])).to.deep.equal(['x.delta_cer.ci95']);
  });

  it('comparison_vs_phase2.json and comparison.json: the estimate, null CI / p / detectable effect, the reason', () => {
    const c = JSON.parse(readFileSync(path.join(root, 'phase5', 'A', 'comparison_vs_phase2.json'), 'utf8'));
    expect(c.bootstrap.clusters).to.equal(1);
    expect(c.bootstrap.delta_cer.estimate).to.be.a('number').and.not.equal(0);
    expect(c.bootstrap.delta_cer).to.include({ ci95: null, p_value: null, significant: null, se: null, mde: null });
    expect(c.bootstrap.delta_cer.reason).to.equal('too few clusters: 1 (at least 10)');
    expect(c.bootstrap.cer_ci95).to.deep.equal({ ocr: null, phase2: null, phase5: null });
    expect(c.interpretation).to.include('no interval or p-value: too few clusters: 1 (at least 10)');
    const all = JSON.parse(readFileSync(path.join(root, 'phase5', 'comparison.json'), 'utf8'));
    expect(all.overall.bootstrap.delta_cer.reason).to.equal('too few clusters: 5 (at least 10)');
    expect(all.overall.bootstrap.delta_cer.ci95).to.equal(null);
  });

  it('arms.json (metrics, contrasts, score bands) and provenance.json: null with the reason, valid against the schema', () => {
    const a = JSON.parse(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8'));
    const rag = a.arms.find((x: { name: string }) => x.name === 'rag');
    expect(rag.cer_ci).to.equal(null);
    expect(rag.ci_reason).to.equal('too few clusters: 5 (at least 10)');
    expect(rag.vs_baseline).to.include({ ci: null, p: null, mde: null, se: null, reason: 'too few clusters: 5 (at least 10)' });
    expect(rag.vs_baseline.delta_cer).to.not.equal(0);
    expect(rag.datasets.A.vs_baseline.reason).to.equal('too few clusters: 1 (at least 10)');
    expect(rag.macro.vs_baseline.reason).to.equal('too few clusters: 5 (at least 10)');
    for (const c of a.contrasts) expect([c.ci, c.p, c.p_holm, c.mde]).to.deep.equal([null, null, null, null]);
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'analysis', 'arms.schema.json'), 'utf8')));
    expect(validate(a), JSON.stringify(validate.errors?.slice(0, 3))).to.equal(true);
    // The schema refuses an interval beside "too few clusters".
    const forged = { ...rag, vs_baseline: { ...rag.vs_baseline, ci: [0.01, 0.02] } };
    expect(validate({ ...a, arms: [forged] })).to.equal(false);
    const prov = JSON.parse(readFileSync(path.join(root, 'study', 'provenance.json'), 'utf8'));
    const no = prov.arms.find((x: { arm: string }) => x.arm === 'rag').by_gold_in_context.no;
    expect([no.lines, no.ci95, no.ci95_vs_ocr, no.reason]).to.deep.equal([30, null, null, 'too few clusters: 5 (at least 10)']);
  });

  it('warns once per output, and the report and the CLI summary say the study is too small for intervals', () => {
    const few = result.warnings.filter((w) => /too few clusters/.test(w));
    expect(few.map((w) => w.split(':')[0])).to.deep.equal([
      'comparison_vs_phase2.json / comparison.json',
      'study/arms.json',
      'study/provenance.json',
    ]);
    for (const file of ['report.md', 'report.html']) {
      const text = readFileSync(path.join(root, 'phase5', file), 'utf8');
      expect(text, file).to.include('Too small for intervals');
      // An empty cell says "—"; each table says why once, and the answer says "too few clusters to say".
      expect(text, file).to.not.include('(too few clusters: 1 (at least 10))');
      expect(text, file).to.include(
        '— = no interval, p-value or detectable effect: too few clusters of lines (1; at least 10, docs/statistics.md).',
      );
      expect(text, file).to.include('too few clusters to say (5 clusters of lines, at least 10 needed)');
    }
    const md = readFileSync(path.join(root, 'phase5', 'report.md'), 'utf8');
    expect(md).to.not.match(/≥ 0\.00 pp/);
    const summary = summarizeResult('analyze', result).join('\n');
    expect(summary).to.match(/warning: study\/arms\.json: \d+ figure\(s\) over too few clusters of lines \(1–5; at least 10\)/);
  });
});
