/**
 * The arms analysis's statistics on real OCR_GS lines (two books, 2,042 lines; imported corrections, no model):
 * ΔCER exactly 0 with p = 1 for an identity arm, a primary p that agrees with the CI where the per-line
 * Wilcoxon test does not, rag vs placebo as a planned contrast in arms.json and the report, the one-line error
 * for a missing line (and the OCR fill, counted, with the option), and block CIs wider than per-line ones.
 */
import Ajv from 'ajv';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeArms, type ArmsAnalysis } from '../../../analysis/study/arms';
import { bootstrapRates } from '../../../analysis/stats/bootstrap';
import { pairedBootstrapDelta } from '../../../analysis/stats/paired';
import { renderReport } from '../../../analysis/report/report';
import type { OcrSample } from '../../../src/datasets';
import { UserInputError } from '../../../src/stages/shared/types';
import { scoreDistances } from '../../../src/text/distance';
import { gold3, identity, loadOcrGs, writeOcrGsArms, type Policy } from '../../helpers/ocrgs-arms';
import { REPO_ROOT, requireSharedData } from '../../helpers/shared-data';

const BOOKS = ['Jahiz.Hayawan', 'Yacqubi.Tarikh'];
const arm = (a: ArmsAnalysis, name: string) => a.arms.find((x) => x.name === name)!;
const covers0 = (ci: [number, number] | null) => ci !== null && ci[0] <= 0 && ci[1] >= 0;

/**
 * Better on many short lines (the gold text where the OCR has errors, on lines shorter than the median), worse
 * on the longest tenth (junk appended) by about as many edits in total: the corpus ΔCER is near 0.
 */
function shortBetterLongWorse(lines: OcrSample[]): Policy {
  const len = lines.map((s) => Array.from(s.gt_text).length);
  const sorted = [...len].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const longCut = sorted[Math.floor(sorted.length * 0.9)];
  const edits = lines.map((s) => scoreDistances(s.gt_text, s.ocr_text).charEdits);
  const shortFixed = new Set(lines.flatMap((_, i) => (len[i] < median && edits[i] > 0 ? [i] : [])));
  const gained = [...shortFixed].reduce((n, i) => n + edits[i], 0);
  const long = lines.flatMap((_, i) => (len[i] >= longCut ? [i] : []));
  const junk = Math.max(1, Math.round(gained / long.length) - 1);
  const longSet = new Set(long);
  return (s, i) => (shortFixed.has(i) ? s.gt_text : longSet.has(i) ? `${s.ocr_text} ${'x'.repeat(junk)}` : s.ocr_text);
}

describe('analysis/arms statistics on real OCR_GS lines', function () {
  this.timeout(300000);
  let lines: OcrSample[];
  let root: string;
  let a: ArmsAnalysis;

  before(async function () {
    requireSharedData(this, 'ocr-gs');
    lines = await loadOcrGs(BOOKS);
    root = mkdtempSync(path.join(os.tmpdir(), 'arms-stats-'));
    writeOcrGsArms(root, lines, [
      { name: 'baseline', prompt: 'zero_shot', policy: identity },
      { name: 'identity', prompt: 'rag', policy: identity, mode: 'random' },
      { name: 'rag', policy: gold3 },
      { name: 'mixed', policy: shortBetterLongWorse(lines), mode: 'hybrid' },
    ]);
    a = await analyzeArms({ resultsDir: root, baseline: 'baseline', bootstrap: { iterations: 10000, seed: 1 }, permutations: 10000 });
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it('an arm imported as the OCR text has ΔCER exactly 0 against an OCR-identity baseline, p = 1', () => {
    expect(lines).to.have.length(2042);
    const v = arm(a, 'identity').vs_baseline!;
    expect(v.delta_cer).to.equal(0);
    expect(v.p).to.equal(1);
    expect(v.ci).to.deep.equal([0, 0]);
    for (const ds of a.datasets) expect(arm(a, 'identity').datasets[ds].vs_baseline!.delta_cer).to.equal(0);
    expect(arm(a, 'identity').macro!.vs_baseline!.delta_cer).to.equal(0);
  });

  it('the primary p agrees with the CI (covers 0 ⇔ p ≥ 0.05) where the per-line Wilcoxon test does not', () => {
    const m = arm(a, 'mixed').vs_baseline!;
    expect(m.better).to.be.greaterThan(3 * m.worse); // many lines better, few worse …
    expect(covers0(m.ci), JSON.stringify(m)).to.equal(true); // … and no evidence either way on the corpus ΔCER
    expect(m.p!).to.be.at.least(0.05);
    expect(m.p_wilcoxon!).to.be.below(1e-6); // the per-line test answers another question
    // Every comparison and contrast, every scope: the permutation p and the block CI tell the same story.
    const all = [
      ...a.arms.flatMap((r) => [r, ...Object.values(r.datasets)].flatMap((x) => (x.vs_baseline ? [x.vs_baseline, x.vs_ocr] : [x.vs_ocr]))),
      ...a.contrasts,
    ];
    const disagree = all.filter((c) => c.delta_cer !== 0 && c.ci && covers0(c.ci) !== c.p! >= 0.05);
    // A p right at 0.05 may fall either side of a percentile bound: allow only near-boundary cases.
    expect(
      disagree.filter((c) => Math.abs(c.p! - 0.05) > 0.01),
      JSON.stringify(disagree),
    ).to.deep.equal([]);
    // gold3 is clearly better: its CI excludes 0 and its p is small.
    const g = arm(a, 'rag').vs_baseline!;
    expect(g.ci![1]).to.be.below(0);
    expect(g.p!).to.be.below(0.001);
  });

  it('an arm vs the baseline is one comparison: its planned contrast states its vs_baseline figures in every scope', () => {
    const fields = (c: { delta_cer: number | null; ci: [number, number] | null; se: number | null; p: number | null }) => ({
      delta_cer: c.delta_cer,
      ci: c.ci,
      se: c.se,
      p: c.p,
    });
    const vsBaseline = a.contrasts.filter((c) => c.vs === 'baseline');
    expect(vsBaseline.map((c) => c.arm).sort()).to.deep.equal(['identity', 'mixed', 'rag']);
    for (const c of vsBaseline) {
      const r = arm(a, c.arm);
      expect(fields(c), c.arm).to.deep.equal(fields(r.vs_baseline!));
      expect(c.p_holm, c.arm).to.equal(r.vs_baseline!.p_holm);
      for (const ds of a.datasets) expect(fields(c.datasets[ds]), `${c.arm} ${ds}`).to.deep.equal(fields(r.datasets[ds].vs_baseline!));
      expect(fields(c.macro!), `${c.arm} macro`).to.deep.equal(fields(r.macro!.vs_baseline!));
    }
    // A contrast of two arms that are not the baseline is measured on its own.
    const mixedVsRag = a.contrasts.find((c) => c.arm === 'mixed' && c.vs === 'rag')!;
    expect(mixedVsRag.ci).to.not.equal(null);
  });

  it('rag vs placebo is a planned contrast in arms.json and leads the report', async () => {
    const c = a.contrasts.find((x) => x.arm === 'rag' && x.vs === 'identity')!;
    expect(c.kind).to.equal('rag_vs_placebo');
    expect(c.in_family).to.equal(true);
    expect(c.p_holm).to.be.a('number');
    expect(c.mde).to.be.greaterThan(0);
    expect(a.contrasts.find((x) => x.arm === 'mixed' && x.vs === 'rag')!.kind).to.equal('variant_vs_rag');
    const doc = JSON.parse(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8'));
    const validate = new Ajv({ strict: false, allErrors: true }).compile(
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'analysis', 'arms.schema.json'), 'utf8')),
    );
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).to.equal(true);
    expect(doc.contrasts.some((x: { arm: string; vs: string }) => x.arm === 'rag' && x.vs === 'identity')).to.equal(true);
    await renderReport(path.join(root, 'study'), { png: false, arms: a });
    const md = readFileSync(path.join(root, 'study', 'report.md'), 'utf8');
    const arms = md.indexOf('## Arms');
    expect(md.indexOf('### Planned contrasts')).to.be.greaterThan(arms);
    expect(md.indexOf('### Planned contrasts')).to.be.lessThan(md.indexOf('### OCR_GS-Jahiz.Hayawan'));
    expect(md).to.match(/\| rag − identity \| rag vs placebo \|/);
    expect(md).to.match(/This study can detect \|ΔCER\| ≥ \d+\.\d\d pp/);
    expect(md).to.include('blocks of 25 consecutive lines');
    expect(md).to.include('### Macro average over datasets');
  });

  it('a missing line fails with a one-line error; with missing_lines: ocr it is scored as the OCR text and counted', async () => {
    const gap = mkdtempSync(path.join(os.tmpdir(), 'arms-gap-'));
    try {
      const drop = new Set([5, 1500, 1501]);
      writeOcrGsArms(gap, lines, [
        { name: 'baseline', prompt: 'zero_shot', policy: identity },
        { name: 'rag', policy: (s, i) => (drop.has(i) ? null : gold3(s, i)) },
      ]);
      const err = await analyzeArms({
        resultsDir: gap,
        baseline: 'baseline',
        write: false,
        bootstrap: { iterations: 200 },
        permutations: 200,
      }).catch((e: Error) => e);
      expect(err).to.be.instanceOf(UserInputError);
      const msg = (err as Error).message;
      expect(msg.split('\n')).to.have.length(1);
      expect(msg)
        .to.include('arm "rag" lacks 1 line(s) of dataset "OCR_GS-Jahiz.Hayawan"')
        .and.include('(and 2 of OCR_GS-Yacqubi.Tarikh)')
        .and.include('missing_lines: ocr');
      const filled = await analyzeArms({
        resultsDir: gap,
        baseline: 'baseline',
        write: false,
        bootstrap: { iterations: 200 },
        permutations: 200,
        missingLines: 'ocr',
      });
      const rag = arm(filled, 'rag');
      expect(rag.filled_lines).to.equal(3);
      expect(rag.lines).to.equal(2042);
      expect(rag.vs_baseline!.n_paired).to.equal(2042);
      expect(
        filled.warnings.some((w) =>
          w.includes('arm rag: 1 of OCR_GS-Jahiz.Hayawan, 2 of OCR_GS-Yacqubi.Tarikh line(s) missing, scored as the OCR text'),
        ),
      ).to.equal(true);
      // Line 5 was a gold line of gold3: scored as OCR instead, the arm loses that fix.
      expect(rag.vs_baseline!.delta_cer!).to.be.greaterThan(arm(a, 'rag').vs_baseline!.delta_cer!);
    } finally {
      rmSync(gap, { recursive: true, force: true });
    }
  });

  it('block CIs are wider than per-line CIs on real data; macro average and per-book figures present', () => {
    // The OCR's own CER: pages differ in quality, so clusters of consecutive lines vary more than single lines.
    const base = arm(a, 'baseline');
    const width = (ci: [number, number] | null) => ci![1] - ci![0];
    const perLineCi = (sub: OcrSample[], strata?: Int32Array) => {
      const ref = sub.map((s) => scoreDistances(s.gt_text, s.gt_text).refChars);
      const ocr = sub.map((s) => scoreDistances(s.gt_text, s.ocr_text).charEdits);
      return bootstrapRates(ref, { ocr }, {}, { iterations: 10000, seed: 1, strata }).rates.ocr;
    };
    const pooled = perLineCi(
      lines,
      Int32Array.from(lines, (s) => a.datasets.indexOf(s.dataset)),
    );
    expect(pooled.estimate!).to.be.closeTo(base.cer!, 1e-6); // same estimate, other interval
    expect(width(base.cer_ci)).to.be.greaterThan(1.2 * width(pooled.ci95));
    for (const ds of a.datasets) {
      expect(width(base.datasets[ds].cer_ci), ds).to.be.greaterThan(1.2 * width(perLineCi(lines.filter((s) => s.dataset === ds)).ci95));
    }
    // The same ΔCER as the per-line paired bootstrap, another interval.
    const rows = lines.map((s, i) => ({
      ref: scoreDistances(s.gt_text, s.gt_text).refChars,
      a: scoreDistances(s.gt_text, s.ocr_text).charEdits,
      b: scoreDistances(s.gt_text, gold3(s, i)!).charEdits,
    }));
    const perLine = pairedBootstrapDelta(
      rows.map((r) => r.ref),
      rows.map((r) => r.a),
      rows.map((r) => r.b),
      { iterations: 1000, seed: 1 },
    );
    expect(perLine.delta!).to.be.closeTo(arm(a, 'rag').vs_baseline!.delta_cer!, 1e-6);
    const m = arm(a, 'rag').macro!;
    expect(m.cer).to.be.a('number');
    expect(m.vs_baseline!.ci![0]).to.be.below(m.vs_baseline!.delta_cer!);
    expect(m.vs_baseline!.ci![1]).to.be.above(m.vs_baseline!.delta_cer!);
    expect(Object.keys(arm(a, 'rag').datasets)).to.deep.equal(['OCR_GS-Jahiz.Hayawan', 'OCR_GS-Yacqubi.Tarikh']);
    expect(a.clusters['OCR_GS-Jahiz.Hayawan']).to.deep.equal({ method: 'blocks of 25 consecutive lines', clusters: 40 });
  });
});
