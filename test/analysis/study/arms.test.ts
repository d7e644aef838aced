/**
 * analysis/study/arms.ts on a tiny hand-made arms tree (figures computed by hand in the comments), the missing-baseline
 * error, the skipped arm, the schema of arms.json, and the report's Arms section with charts that compile.
 */
import Ajv from 'ajv';
import { expect } from 'chai';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import * as vl from 'vega-lite';
import { analyzeArms, type ArmsAnalysis } from '../../../analysis/study/arms';
import { buildArmsCharts, topKGroups } from '../../../analysis/report/sections/arms';
import { datasetExclusions } from '../../../analysis/inputs/leakage';
import { run } from '../../../analysis/stage';
import { studyReportDir } from '../../../analysis/stage/report-dir';
import { holm } from '../../../analysis/stats/paired';
import { UserInputError } from '../../../src/stages/shared/types';
import { REPO_ROOT } from '../../helpers/shared-data';
import { writeArmsLinesTree } from '../arms-fixture';
import { writeStudy } from '../helpers';
import { armCorrectionRecord } from '../../helpers/records';

const require = createRequire(import.meta.url);

// Gold / OCR lines. D1: 50 gold chars, OCR edits 0 + 1 + 1 + 3 = 5; D2: 100 gold chars, OCR edits 1 + 0.
const G10 = 'abcdefghij';
const G20 = 'abcdefghijklmnopqrst';
const LINES = {
  D1: [
    { id: 'l1', gt: G10, ocr: G10 }, //                 0 edits → band 0–2 %
    { id: 'l2', gt: G10, ocr: 'abcdefghiX' }, //        1 / 10 → 10–20 %
    { id: 'l3', gt: G20, ocr: 'abcdefghijklmnopqrsX' }, // 1 / 20 → 5–10 %
    { id: 'l4', gt: G10, ocr: 'abcdefgXYZ' }, //        3 / 10 → > 20 %
  ],
  D2: [
    { id: 'm1', gt: 'x'.repeat(50), ocr: 'x'.repeat(49) + 'q' }, // 1 / 50 = 2 % → 2–5 %
    { id: 'm2', gt: 'y'.repeat(50), ocr: 'y'.repeat(50) }, //       0 → 0–2 %
  ],
} as const;
type Line = (typeof LINES)[keyof typeof LINES][number];

const GUARD = { enabled: true, max_edit_ratio: 0.5, length_ratio: [0.6, 1.5], trim_overgeneration: true };

interface Out {
  corrected: string;
  raw?: string;
  guard?: string;
}

function writeArm(root: string, info: Record<string, unknown>, correct: ((l: Line, ds: string) => Out) | null): void {
  const dir = path.join(root, 'arms', String(info.name));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'arm.json'), JSON.stringify(info));
  if (!correct) return;
  const recs: string[] = [];
  for (const [ds, lines] of Object.entries(LINES)) {
    for (const l of lines) {
      const o = correct(l, ds);
      recs.push(JSON.stringify(armCorrectionRecord(l, ds, info.prompt === 'zero_shot' ? 'zero_shot' : 'rag', o)));
    }
  }
  writeFileSync(path.join(dir, 'corrections.jsonl'), recs.join('\n') + '\n');
}

/** `<root>/exports/<fingerprint>/retrieval_stats.json` as the study export writes it (verbatim-gold counts per dataset). */
function writeRetrievalStats(root: string, fingerprint: string, byDataset: Record<string, [lines: number, hits: number]>): void {
  const dir = path.join(root, 'exports', fingerprint);
  mkdirSync(dir, { recursive: true });
  const per = Object.fromEntries(Object.entries(byDataset).map(([ds, [lines, hits]]) => [ds, { lines, hits, rate: hits / lines }]));
  const lines = Object.values(byDataset).reduce((n, [l]) => n + l, 0);
  const hits = Object.values(byDataset).reduce((n, [, h]) => n + h, 0);
  writeFileSync(
    path.join(dir, 'retrieval_stats.json'),
    JSON.stringify({ fingerprint, verbatim_gold: { threshold: 0.9, lines, hits, rate: hits / lines, by_dataset: per } }),
  );
}

/**
 * zero_shot (baseline): fixes l2 only. rag (guard on): see per line. oracle: gold everywhere. rag_k1: as the baseline.
 * Verbatim gold: rag's export has D1 1/4, D2 2/2; oracle's has every line (and a dataset D3 it has no lines of);
 * rag_k1 has only arm.json's pooled rate; zero_shot's arm.json claims one, which a zero-shot arm must not report.
 */
function writeArmsTree(root: string): void {
  const ret = (mode: string, top_k: number) => ({ mode, top_k, fingerprint: `fp-${mode}-${top_k}` });
  writeRetrievalStats(root, 'fp-dense-3', { D1: [4, 1], D2: [2, 2] });
  writeRetrievalStats(root, 'fp-gold_query-3', { D1: [4, 4], D2: [2, 2], D3: [10, 0] });
  writeArm(
    root,
    {
      name: 'zero_shot',
      prompt: 'zero_shot',
      retrieval: ret('none', 0),
      upper_bound: false,
      model: 'm',
      guard: null,
      verbatim_gold_rate: 0.9,
    },
    (l) => ({ corrected: l.id === 'l2' ? l.gt : l.ocr }),
  );
  writeArm(
    root,
    { name: 'rag', prompt: 'rag', retrieval: ret('dense', 3), upper_bound: false, model: 'm', guard: GUARD, verbatim_gold_rate: 0.5 },
    (l) => {
      switch (l.id) {
        case 'l3':
          return { corrected: l.ocr, raw: 'z'.repeat(20), guard: 'fell_back:edit_ratio' }; // raw: 20 edits
        case 'l4':
          return { corrected: l.gt, raw: `Here: ${l.gt}`, guard: 'trimmed' }; //            raw: 6 edits
        case 'm2':
          return { corrected: 'y'.repeat(49) + 'w', guard: 'kept' }; //                    worse than OCR
        default:
          return { corrected: l.gt, guard: 'kept' };
      }
    },
  );
  writeArm(root, { name: 'oracle', prompt: 'rag', retrieval: ret('gold_query', 3), upper_bound: true, model: 'm', guard: GUARD }, (l) => ({
    corrected: l.gt,
    guard: 'kept',
  }));
  writeArm(
    root,
    {
      name: 'rag_k1',
      prompt: 'rag',
      retrieval: ret('dense', 1),
      upper_bound: false,
      model: 'm',
      guard: GUARD,
      verbatim_gold_rate: 0.333333,
    },
    (l) => ({ corrected: l.id === 'l2' ? l.gt : l.ocr, guard: 'kept' }),
  );
  writeArm(root, { name: 'unfinished', prompt: 'rag', retrieval: ret('random', 3), upper_bound: false, model: 'm', guard: null }, null);
}

/** What the stage (analysis/stage.ts `corpusExclusions`) would pass for a config with exclusion by work on. */
const EXCLUSIONS = datasetExclusions(
  [{ dataset: 'D1', source_pattern: '0292Yacqubi.Tarikh.JK001493-ara1' }, { dataset: 'D2' }],
  [],
  [{ dataset: 'D1', works: ['0292Yacqubi.Tarikh'], versions: ['0292Yacqubi.Tarikh.JK001493-ara1', '0292Yacqubi.Tarikh.Shamela0001-ara1'] }],
);
const EXCLUSION_LINES = [
  '### Excluded from the retrieval corpus (leakage control)',
  '',
  '- D1 → excluded 2 version(s) of 0292Yacqubi.Tarikh (by work): 0292Yacqubi.Tarikh.JK001493-ara1, 0292Yacqubi.Tarikh.Shamela0001-ara1',
  '- D2 → no source declared (no source_pattern) — nothing could be excluded',
].join('\n');

const arm = (a: ArmsAnalysis, name: string) => a.arms.find((x) => x.name === name)!;
/** The hand-made lines are independent: one line per cluster (the default blocks of 25 would make one cluster per dataset). */
const LINE_CLUSTERS = { blockLines: 1 };

const TOY = { baseline: 'zero_shot', bootstrap: { iterations: 200, seed: 3 }, clusters: LINE_CLUSTERS, minClusters: 1 };

describe('analysis/arms (all arms together)', function () {
  this.timeout(60000);
  let root: string;
  let a: ArmsAnalysis;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'arms-test-'));
    writeArmsTree(root);
    // Six one-line clusters: intervals computed on purpose (test/analysis/stats/min-clusters.test.ts tests the minimum).
    a = await analyzeArms({ ...TOY, resultsDir: root });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('finds the arms, counts the folder without corrections as a skip, marks baseline and upper bound', () => {
    expect(a.arms.map((x) => x.name)).to.deep.equal(['oracle', 'rag', 'rag_k1', 'zero_shot']);
    expect(a.skipped).to.have.length(1);
    expect(a.skipped[0].arm).to.equal('unfinished');
    expect(a.skipped[0].reason).to.match(/no corrections\.jsonl/);
    expect(a.warnings.some((w) => w.includes('unfinished'))).to.equal(true);
    expect(a.baseline).to.equal('zero_shot');
    expect(arm(a, 'zero_shot').is_baseline).to.equal(true);
    expect(arm(a, 'zero_shot').vs_baseline).to.equal(null);
    expect(arm(a, 'oracle').upper_bound).to.equal(true);
    expect(arm(a, 'rag').upper_bound).to.equal(false);
  });

  it('scores CER, raw CER and ΔCER as computed by hand', () => {
    const rag = arm(a, 'rag');
    const d1 = rag.datasets.D1;
    // D1: rag edits 0 + 0 + 1 + 0 = 1 of 50; baseline 0 + 0 + 1 + 3 = 4; OCR 5; raw 0 + 0 + 20 + 6 = 26.
    expect(d1.lines).to.equal(4);
    expect(d1.cer).to.equal(0.02);
    expect(d1.ocr_cer).to.equal(0.1);
    expect(d1.raw_cer).to.equal(0.52);
    expect(d1.vs_baseline!.delta_cer).to.equal(-0.06);
    expect(d1.vs_ocr.delta_cer).to.equal(-0.08);
    expect([d1.vs_baseline!.better, d1.vs_baseline!.same, d1.vs_baseline!.worse]).to.deep.equal([1, 3, 0]);
    // Pooled: rag 2 of 150, baseline 5 of 150, raw 27 of 150.
    expect(rag.lines).to.equal(6);
    expect(rag.cer).to.equal(0.013333);
    expect(rag.raw_cer).to.equal(0.18);
    expect(rag.vs_baseline!.delta_cer).to.equal(-0.02);
    expect(rag.vs_baseline!.n_paired).to.equal(6);
    expect(arm(a, 'oracle').vs_baseline!.delta_cer).to.equal(-0.033333);
    // Without raw_text the raw CER is the CER.
    expect(arm(a, 'zero_shot').raw_cer).to.equal(arm(a, 'zero_shot').cer);
    const [lo, hi] = rag.cer_ci!;
    expect(lo).to.be.at.most(rag.cer!);
    expect(hi).to.be.at.least(rag.cer!);
    // WER with its own bootstrap interval around it.
    const [wlo, whi] = rag.wer_ci!;
    expect(wlo).to.be.at.most(rag.wer!);
    expect(whi).to.be.at.least(rag.wer!);
    expect(whi).to.be.greaterThan(wlo);
  });

  it('counts improved / unchanged / worsened lines per OCR-CER band', () => {
    const rag = arm(a, 'rag');
    expect([rag.improved, rag.unchanged, rag.worsened]).to.deep.equal([3, 2, 1]);
    expect(rag.by_band).to.deep.equal({
      '0–2%': { lines: 2, ocr_cer: 0, cer: 0.016667, improved: 0, unchanged: 1, worsened: 1 },
      '2–5%': { lines: 1, ocr_cer: 0.02, cer: 0, improved: 1, unchanged: 0, worsened: 0 },
      '5–10%': { lines: 1, ocr_cer: 0.05, cer: 0.05, improved: 0, unchanged: 1, worsened: 0 },
      '10–20%': { lines: 1, ocr_cer: 0.1, cer: 0, improved: 1, unchanged: 0, worsened: 0 },
      '>20%': { lines: 1, ocr_cer: 0.3, cer: 0, improved: 1, unchanged: 0, worsened: 0 },
    });
    expect(rag.datasets.D2.by_band['0–2%']).to.deep.equal({ lines: 1, ocr_cer: 0, cer: 0.02, improved: 0, unchanged: 0, worsened: 1 });
    expect(rag.datasets.D2.by_band['10–20%'].lines).to.equal(0);
  });

  it('reports the verbatim-gold retrieval rate per arm and dataset; none for a zero-shot arm', async () => {
    const rate = (name: string) => [
      arm(a, name).verbatim_gold_rate,
      arm(a, name).datasets.D1.verbatim_gold_rate,
      arm(a, name).datasets.D2.verbatim_gold_rate,
    ];
    expect(rate('rag')).to.deep.equal([0.5, 0.25, 1]); // (1 + 2) / (4 + 2) pooled, from retrieval_stats.json
    expect(rate('oracle')).to.deep.equal([1, 1, 1]); // D3 of the export has no line of this analysis: left out
    expect(rate('rag_k1')).to.deep.equal([0.333333, null, null]); // no export stats: arm.json's pooled rate only
    expect(rate('zero_shot')).to.deep.equal([null, null, null]); // a zero-shot arm sees no context
    // A dataset subset gets the rate of its own lines, not the export's pooled one.
    const d1 = await analyzeArms({
      resultsDir: root,
      baseline: 'zero_shot',
      datasets: ['D1'],
      bootstrap: { iterations: 20, seed: 3 },
      write: false,
    });
    expect(arm(d1, 'rag').verbatim_gold_rate).to.equal(0.25);
  });

  it('reports guard trigger rates per reason, and none for an arm without guard fields', () => {
    expect(arm(a, 'rag').guard).to.deep.equal({
      lines: 6,
      kept: 0.666667,
      trimmed: 0.166667,
      fell_back: 0.166667,
      by_reason: { edit_ratio: 0.166667 },
      counts: { 'fell_back:edit_ratio': 1, kept: 4, trimmed: 1 },
    });
    expect(arm(a, 'zero_shot').guard).to.equal(null);
  });

  it('runs the planned contrasts, Holm over all of them on every scope; an upper bound stays out', async () => {
    // rag_k1 equals the baseline on every line: ΔCER exactly 0, permutation p = 1.
    expect(arm(a, 'rag_k1').vs_baseline!.delta_cer).to.equal(0);
    expect(arm(a, 'rag_k1').vs_baseline!.p).to.equal(1);
    // Default contrasts: every arm vs the baseline, then rag_k1 (another dense setting) vs rag.
    expect(a.contrasts.map((c) => [c.arm, c.vs, c.kind, c.in_family])).to.deep.equal([
      ['oracle', 'zero_shot', 'vs_baseline', false],
      ['rag', 'zero_shot', 'vs_baseline', true],
      ['rag_k1', 'zero_shot', 'vs_baseline', true],
      ['rag_k1', 'rag', 'variant_vs_rag', true],
    ]);
    // One family: 3 contrasts × (D1, D2, pooled, macro); Holm by hand over all 12 p-values.
    const members = a.contrasts.filter((c) => c.in_family).flatMap((c) => [c, ...Object.values(c.datasets), c.macro!]);
    expect(members).to.have.length(12);
    const adjusted = holm(members.map((m) => m.p));
    members.forEach((m, i) => expect(m.p_holm).to.be.closeTo(adjusted[i]!, 1e-5));
    // vs_baseline carries its contrast's adjusted p; the oracle's is null.
    expect(arm(a, 'rag').vs_baseline!.p_holm).to.equal(a.contrasts[1].p_holm);
    expect(arm(a, 'rag').datasets.D1.vs_baseline!.p_holm).to.equal(a.contrasts[1].datasets.D1.p_holm);
    expect(arm(a, 'oracle').vs_baseline!.p_holm).to.equal(null);
    expect(a.contrasts[0].p_holm).to.equal(null);
    // The same oracle declared a method arm joins the family, which can only raise the others' adjusted p.
    const twin = mkdtempSync(path.join(os.tmpdir(), 'arms-holm-'));
    try {
      cpSync(root, twin, { recursive: true });
      const oracleJson = path.join(twin, 'arms', 'oracle', 'arm.json');
      writeFileSync(
        oracleJson,
        JSON.stringify({ ...JSON.parse(readFileSync(oracleJson, 'utf8')), upper_bound: false, retrieval: { mode: 'dense', top_k: 3 } }),
      );
      const b = await analyzeArms({ ...TOY, resultsDir: twin, write: false });
      expect(b.contrasts.every((c) => c.in_family)).to.equal(true);
      expect(arm(b, 'oracle').vs_baseline!.p_holm).to.not.equal(null);
      expect(arm(b, 'rag').vs_baseline!.p_holm!).to.be.at.least(arm(a, 'rag').vs_baseline!.p_holm!);
    } finally {
      rmSync(twin, { recursive: true, force: true });
    }
    // Secondary per-line statistics. oracle vs baseline pooled: l3 (−0.05), l4 (−0.3) and m1 (−0.02) better, the
    // rest tie → Wilcoxon on 3 negatives: R+ = 0, mean 3, se = √(3·4·7/24) → z = (−3 + 0.5)/se; p = 0.181449 (scipy);
    // sign test 2 · ⅛.
    const o = arm(a, 'oracle').vs_baseline!;
    expect([o.better, o.same, o.worse]).to.deep.equal([3, 3, 0]);
    expect(o.p_wilcoxon).to.be.closeTo(0.181449, 1e-6);
    expect(o.p_sign).to.equal(0.25);
    // The permutation p of the printed ΔCER: 6 one-line clusters, only 3 non-zero → 2³ equally likely sign
    // patterns, |T*| ≥ |T| only for all-negative or all-positive: p ≈ (1 + N/4) / (1 + N).
    expect(o.p).to.be.closeTo(0.25, 0.03);
  });

  it('reports the guard effect (guarded vs cleaned raw output), error classes per arm, and ΔCER by retrieval score band', async () => {
    // rag: guarded edits 2 of 150; unguarded (raw after cleaning) 0 + 0 + 20 + 6 + 0 + 1 = 27 → −25/150.
    const g = arm(a, 'rag').when.guard_effect!;
    expect(g.delta_cer).to.equal(-0.166667);
    expect([g.better, g.same, g.worse]).to.deep.equal([2, 4, 0]);
    expect(arm(a, 'zero_shot').when.guard_effect).to.equal(null);
    // Error classes: the oracle fixes every OCR error (5 + 1 = 6), introduces none; rag introduces m2's.
    const total = (name: string, k: 'fixed' | 'introduced') => Object.values(arm(a, name).when.error_classes).reduce((n, c) => n + c[k], 0);
    expect([total('oracle', 'fixed'), total('oracle', 'introduced')]).to.deep.equal([6, 0]);
    expect(total('rag', 'introduced')).to.equal(1);
    // No inference_input.jsonl here: no score bands. The Lines-view fixture has scores (top-1 0.91 on every line).
    expect(arm(a, 'rag').when.by_score_band).to.equal(null);
    const withInputs = mkdtempSync(path.join(os.tmpdir(), 'arms-bands-'));
    try {
      writeArmsLinesTree(withInputs);
      const b = await analyzeArms({
        resultsDir: withInputs,
        baseline: 'zero_shot',
        bootstrap: { iterations: 100, seed: 1 },
        permutations: 100,
        clusters: LINE_CLUSTERS,
        write: false,
      });
      const bands = arm(b, 'rag').when.by_score_band!;
      expect(bands['0.8+'].lines).to.equal(4);
      expect(bands['0.8+'].delta_cer).to.equal(arm(b, 'rag').vs_baseline!.delta_cer);
      expect(bands['<0.6'].lines).to.equal(0);
      expect(arm(b, 'zero_shot').when.by_score_band).to.equal(null);
    } finally {
      rmSync(withInputs, { recursive: true, force: true });
    }
  });

  it("writes arms.json valid against analysis/arms.schema.json, and each arm's metrics.json", () => {
    const doc = JSON.parse(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8'));
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'analysis', 'arms.schema.json'), 'utf8')));
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).to.equal(true);
    expect(doc.files).to.equal(undefined);
    const m = JSON.parse(readFileSync(path.join(root, 'arms', 'rag', 'metrics.json'), 'utf8'));
    expect(m.meta.arm).to.equal('rag');
    expect(m.cer).to.equal(arm(a, 'rag').cer);
    expect(existsSync(path.join(root, 'arms', 'unfinished', 'metrics.json'))).to.equal(false);
    // A broken document must fail the schema (the check can fail).
    expect(validate({ ...doc, arms: [{ ...doc.arms[0], by_band: {} }] })).to.equal(false);
    expect(doc.exclusions).to.equal(null); // analysed without a config: not known
    expect(doc.arms.find((x: { name: string }) => x.name === 'rag').datasets.D1.verbatim_gold_rate).to.equal(0.25);
    const { verbatim_gold_rate: _v, ...noRate } = doc.arms[0];
    expect(validate({ ...doc, arms: [noRate] })).to.equal(false);
    const excl = {
      dataset: 'D1',
      source_pattern: 'X*',
      status: 'excluded',
      by_work: true,
      works: ['X'],
      versions: ['X.v1'],
      exclude_patterns: [],
    };
    expect(validate({ ...doc, exclusions: [excl] })).to.equal(true);
    expect(validate({ ...doc, exclusions: [{ ...excl, status: 'maybe' }] })).to.equal(false);
  });

  it('is deterministic: a second run writes the same bytes', async () => {
    const first = readFileSync(path.join(root, 'study', 'arms.json'), 'utf8');
    await analyzeArms({ ...TOY, resultsDir: root });
    expect(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8')).to.equal(first);
  });

  it('fails with a clear error when the baseline arm is missing (or was skipped)', async () => {
    const err = await analyzeArms({ resultsDir: root, baseline: 'nope', write: false }).catch((e: Error) => e);
    expect(err).to.be.instanceOf(UserInputError);
    expect((err as Error).message)
      .to.include('baseline arm "nope" not found')
      .and.include('oracle, rag, rag_k1, zero_shot');
    const err2 = await analyzeArms({ resultsDir: root, baseline: 'unfinished', write: false }).catch((e: Error) => e);
    expect((err2 as Error).message)
      .to.include('skipped')
      .and.include('no corrections.jsonl');
  });

  it('names the file, line and field of a bad guard value', async () => {
    const bad = mkdtempSync(path.join(os.tmpdir(), 'arms-bad-'));
    try {
      writeArm(bad, { name: 'zero_shot', prompt: 'zero_shot', upper_bound: false, model: 'm', guard: null }, (l) => ({
        corrected: l.ocr,
        guard: l.id === 'l3' ? 'maybe' : 'kept',
      }));
      const err = await analyzeArms({ resultsDir: bad, baseline: 'zero_shot', write: false }).catch((e: Error) => e);
      expect((err as Error).message).to.match(/corrections\.jsonl:3: .*guard: expected/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it('draws the gain-vs-k chart only for arms that differ only in top_k', () => {
    expect(topKGroups(a.arms).map((g) => g.map((x) => x.name))).to.deep.equal([['rag', 'rag_k1']]);
    // With k_group (arm.json of a study export) only arms whose every other setting matches form a series.
    const withGroup = (g: (name: string) => string) =>
      a.arms.map((x) => ({ ...x, retrieval: x.retrieval && { ...x.retrieval, k_group: g(x.name) } }));
    expect(topKGroups(withGroup(() => 'same')).map((g) => g.map((x) => x.name))).to.deep.equal([['oracle', 'rag', 'rag_k1', 'zero_shot']]);
    expect(topKGroups(withGroup((n) => (n === 'rag_k1' ? 'rerank-on' : n)))).to.deep.equal([]); // rag and rag_k1 differ in more than k
    const charts = buildArmsCharts(a);
    expect(charts.map((c) => c.name)).to.deep.equal(['arms_forest', 'arms_gain_vs_k']);
    const noK = { ...a, arms: a.arms.filter((x) => x.name !== 'rag_k1') };
    expect(buildArmsCharts(noK).map((c) => c.name)).to.deep.equal(['arms_forest']);
  });

  it('charts validate against the Vega-Lite schema and compile without warnings', () => {
    const schema = JSON.parse(readFileSync(path.join(path.dirname(require.resolve('vega-lite')), 'vega-lite-schema.json'), 'utf8'));
    const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
    for (const c of buildArmsCharts(a)) {
      expect(validate(c.spec), `${c.name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).to.equal(true);
      const warnings: string[] = [];
      const logger = {
        level: () => 0,
        error: (...x: unknown[]) => (warnings.push(x.join(' ')), logger),
        warn: (...x: unknown[]) => (warnings.push(x.join(' ')), logger),
        info: () => logger,
        debug: () => logger,
      };
      vl.compile(c.spec as unknown as vl.TopLevelSpec, { logger: logger as never });
      expect(warnings, c.name).to.deep.equal([]);
    }
  });

  it('the analyze stage adds the Arms section to the report when arms exist, and leaves it out otherwise', async () => {
    const { ragDir, baselineDir } = writeStudy(root, {
      datasets: { D1: LINES.D1.map((l) => ({ ...l })) },
      phase5: (p) => ({ corrected: p.gt }),
      phase2: (p) => ({ corrected: p.ocr }),
    });
    const base = { ragDir, baselineDir, bootstrap: { iterations: 50, seed: 1 }, logFile: false as const, report: { png: false } };
    const withArms = await run({ ...base, arms: { resultsDir: root, baseline: 'zero_shot', exclusions: EXCLUSIONS } }, {}, 'silent');
    const md = readFileSync(path.join(ragDir, 'report.md'), 'utf8');
    expect(md).to.include('## Arms');
    expect(md).to.include(EXCLUSION_LINES);
    expect(md).to.match(/\| rag \|.*\| 50\.0% \|$/m); // the verbatim-gold column, last
    expect(md).to.include('| Verbatim gold retrieved |');
    expect(readFileSync(path.join(ragDir, 'report.html'), 'utf8')).to.include('D2 → no source declared');
    expect(JSON.parse(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8')).exclusions).to.deep.equal(EXCLUSIONS);
    expect(md).to.include('oracle † (upper bound)');
    expect(md).to.include('![ΔCER vs the baseline arm (forest plot)](charts/arms_forest.png)');
    expect(readFileSync(path.join(ragDir, 'report.html'), 'utf8')).to.include('id="chart-arms_forest"');
    expect(withArms.arms!.baseline).to.equal('zero_shot');
    expect(withArms.arms!.arms.find((x) => x.name === 'rag')!.delta_cer).to.equal(-0.02);
    await run(base, {}, 'silent');
    expect(readFileSync(path.join(ragDir, 'report.md'), 'utf8')).to.not.include('## Arms');
    expect(existsSync(path.join(ragDir, 'charts', 'arms_forest.vl.json'))).to.equal(false);
  });

  it('one report per results dir: under study/, the answer first, then the planned contrasts, no second Phase 5 vs Phase 2 main table, an earlier copy in the Phase 5 folder removed', async () => {
    const { ragDir, baselineDir } = writeStudy(root, {
      datasets: { D1: LINES.D1.map((l) => ({ ...l })) },
      phase5: (p) => ({ corrected: p.gt }),
      phase2: (p) => ({ corrected: p.ocr }),
    });
    // What an earlier version wrote beside the Phase 5 documents.
    for (const f of ['report.html', 'report.md', 'charts/cer_by_arm.svg', 'report-lines/lines-0.js']) {
      mkdirSync(path.dirname(path.join(ragDir, f)), { recursive: true });
      writeFileSync(path.join(ragDir, f), 'an earlier run');
    }
    const reportDir = studyReportDir(root);
    const r = await run(
      {
        ragDir,
        baselineDir,
        reportDir,
        bootstrap: { iterations: 50, seed: 1 },
        logFile: false,
        report: { png: false },
        arms: { resultsDir: root, baseline: 'zero_shot', exclusions: EXCLUSIONS },
      },
      {},
      'silent',
    );
    expect(r.report).to.equal(path.join(root, 'study', 'report.html'));
    for (const f of ['report.html', 'report.md', 'charts', 'report-lines']) expect(existsSync(path.join(ragDir, f)), f).to.equal(false);
    const md = readFileSync(path.join(reportDir, 'report.md'), 'utf8');
    const arms = md.indexOf('## Arms');
    expect(arms).to.be.greaterThan(0);
    expect(md.indexOf('Planned contrasts')).to.be.greaterThan(arms);
    expect(md.indexOf('## The answer')).to.be.within(0, arms);
    // The arm tables carry the per-dataset figures: the design document's main table (the same comparison) is not repeated.
    expect(md).to.not.include('## Main results');
    expect(md.indexOf('## Line-level effects and failures')).to.be.greaterThan(md.indexOf('Planned contrasts'));
    expect(existsSync(path.join(reportDir, 'report.html'))).to.equal(true);
    expect(existsSync(path.join(reportDir, 'charts', 'arms_forest.vl.json'))).to.equal(true);
    expect(existsSync(path.join(reportDir, 'charts', 'cer_by_arm.vl.json'))).to.equal(true);
  });

  it('with arms and no Phase 5 corrections, the stage writes the arms report under study/', async () => {
    const r = await run(
      {
        ragDir: path.join(root, 'nothing-here'),
        bootstrap: { iterations: 50, seed: 1 },
        report: { png: false },
        arms: { resultsDir: root, baseline: 'zero_shot', exclusions: EXCLUSIONS },
      },
      {},
      'silent',
    );
    expect(r.report).to.equal(path.join(root, 'study', 'report.html'));
    const md = readFileSync(path.join(root, 'study', 'report.md'), 'utf8');
    expect(md).to.include('## Arms');
    expect(md).to.include(EXCLUSION_LINES);
    expect(existsSync(path.join(root, 'study', 'charts', 'arms_gain_vs_k.svg'))).to.equal(true);
  });
});
