/**
 * study/paper/ (analysis/report/paper/): the main table as booktabs LaTeX and CSV with every figure as arms.json
 * states it, the paper row (rag vs zero_shot) equal to the design document's Phase 5 vs Phase 2 figures, each
 * figure as SVG and 300-dpi PNG; the bounded metrics' columns appear exactly when arms.json carries them.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as aq from 'arquero';
import { PRINT_SCALE } from '../../../../analysis/report/paper/paper';
import { mainColumns, mainRows } from '../../../../analysis/report/paper/main-table';
import { armsSection } from '../../../../analysis/report/sections/arms';
import type { ArmsAnalysis } from '../../../../analysis/study/arms';
import { readJson, runDefaultStudy } from '../../default-arms-study';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const csvRows = (file: string) => aq.fromCSV(readFileSync(file, 'utf8')).objects() as Json[];

describe('analysis/report/paper: study/paper/', function () {
  this.timeout(180000);
  let root: string;
  let paper: string;
  let arms: ArmsAnalysis;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'paper-'));
    await runDefaultStudy(root, ['D1', 'D2'], undefined, { report: {}, reportDir: path.join(root, 'study') });
    paper = path.join(root, 'study', 'paper');
    arms = readJson(path.join(root, 'study', 'arms.json'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('holds the main table, the paper row and every figure of the report as SVG and PNG', () => {
    const files = readdirSync(paper);
    expect(files).to.include.members([
      'main_table.tex',
      'main_table.csv',
      'paper_row.tex',
      'paper_row.csv',
      'arms_forest.svg',
      'arms_forest.png',
    ]);
    const charts = readdirSync(path.join(root, 'study', 'charts')).filter((f) => f.endsWith('.svg'));
    for (const svg of charts) expect(files, svg).to.include.members([svg, svg.replace('.svg', '.png')]);
  });

  it('main_table.csv: one row per dataset and arm (pooled last), each figure as arms.json states it', () => {
    const rows = csvRows(path.join(paper, 'main_table.csv'));
    expect(rows.map((r) => `${r.dataset}/${r.arm}`)).to.deep.equal(
      ['D1', 'D2', 'All datasets'].flatMap((ds) => arms.arms.map((a) => `${ds}/${a.name}`)),
    );
    for (const r of rows) {
      const a = arms.arms.find((x) => x.name === r.arm)!;
      const m = r.dataset === 'All datasets' ? a : a.datasets[r.dataset];
      expect(r.cer).to.equal(m.cer);
      expect(r.cer_ci_lo).to.equal(m.cer_ci?.[0] ?? null);
      expect(r.delta_cer).to.equal(m.vs_baseline?.delta_cer ?? null);
      expect(r.delta_cer_ci_hi).to.equal(m.vs_baseline?.ci?.[1] ?? null);
      expect(r.p_holm).to.equal(m.vs_baseline?.p_holm ?? null);
    }
  });

  it('main_table.tex: booktabs rules, CIs, and the profile and the method in the caption', () => {
    const tex = readFileSync(path.join(paper, 'main_table.tex'), 'utf8');
    for (const rule of ['\\toprule', '\\midrule', '\\bottomrule']) expect(tex).to.include(rule);
    const cols = /\\begin\{tabular\}\{(lr+)\}/.exec(tex)?.[1];
    expect(cols, 'one l column, then r columns').to.be.a('string');
    expect(tex).to.include('zero\\_shot (baseline)').and.include(`\\multicolumn{${cols!.length}}{l}{\\textit{All datasets}}`);
    const rag = arms.arms.find((a) => a.name === 'rag')!;
    const ci = rag.vs_baseline!.ci!;
    const pp = (x: number) => `${x < 0 ? '$-$' : '+'}${Math.abs(x * 100).toFixed(2)}`;
    expect(tex).to.include(`${pp(rag.vs_baseline!.delta_cer!)} [${pp(ci[0])}, ${pp(ci[1])}]`);
    const caption = /\\caption\{(.*)\}/.exec(tex)![1];
    expect(caption)
      .to.include('under the nfc profile')
      .and.include('paired percentile block bootstrap')
      .and.include('300 resamples, seed 11');
    expect(caption).to.include('Holm-adjusted');
  });

  it("paper_row: rag vs zero_shot per dataset and pooled, the design document's Phase 5 and Phase 2 CERs", () => {
    const rows = csvRows(path.join(paper, 'paper_row.csv'));
    expect(rows.map((r) => r.dataset)).to.deep.equal(['D1', 'D2', 'All datasets']);
    const c = arms.contrasts.find((x) => x.arm === 'rag' && x.vs === 'zero_shot')!;
    for (const r of rows) {
      expect(r.row).to.equal('5: +RAG (OpenITI)');
      const v = r.dataset === 'All datasets' ? c : c.datasets[r.dataset];
      expect([r.delta_cer, r.delta_cer_ci_lo, r.delta_cer_ci_hi]).to.deep.equal([v.delta_cer, v.ci![0], v.ci![1]]);
      if (r.dataset === 'All datasets') continue;
      const doc = readJson(path.join(root, 'arms', 'rag', r.dataset, 'comparison_vs_phase2.json'));
      expect(r.rag_cer).to.be.closeTo(doc.phase5_corrected.cer, 1e-6);
      expect(r.zero_shot_cer).to.be.closeTo(doc.phase2_baseline.cer, 1e-6);
    }
    expect(readFileSync(path.join(paper, 'paper_row.tex'), 'utf8')).to.include(
      '\\caption{Row 5: +RAG (OpenITI): RAG over OpenITI vs zero-shot',
    );
  });

  it('each PNG is the SVG at 300 dpi (its CSS pixels at 96 per inch)', () => {
    const svg = readFileSync(path.join(paper, 'arms_forest.svg'), 'utf8');
    const width = Number(/<svg[^>]* width="([\d.]+)"/.exec(svg)![1]);
    const png = readFileSync(path.join(paper, 'arms_forest.png'));
    expect(png.subarray(1, 4).toString()).to.equal('PNG');
    expect(png.readUInt32BE(16)).to.be.closeTo(width * PRINT_SCALE, 1);
    expect(PRINT_SCALE).to.equal(300 / 96);
  });

  it('the bounded metrics (cMER, wMER, preference) get columns only when arms.json carries them', () => {
    const withoutMetrics = structuredClone(arms) as Json;
    for (const a of withoutMetrics.arms)
      for (const m of [a, ...Object.values(a.datasets as Json)] as Json[])
        for (const k of ['cmer', 'cmer_ci', 'cmer_macro', 'wmer', 'wmer_macro', 'ocr_cmer', 'preference']) delete m[k];
    const withMetrics = structuredClone(withoutMetrics) as Json;
    for (const a of withMetrics.arms)
      for (const m of [a, ...Object.values(a.datasets as Json)])
        Object.assign(m, { cmer: 0.05, wmer: 0.2, preference: { score: 0.25, ci95: [0.1, 0.4] } });
    const heads = (a: Json) => mainColumns(mainRows(a as ArmsAnalysis)).map((c) => c.head);
    expect(heads(withoutMetrics)).to.not.include('cMER (\\%)');
    expect(heads(withMetrics)).to.include.members(['cMER (\\%)', 'wMER (\\%)', 'Preference [95\\% CI]']);
    const tableHeads = (a: Json) =>
      armsSection(a as ArmsAnalysis, []).flatMap((b) =>
        b.kind === 'table' && b.head[0] === 'Arm' && b.head.includes('Lines') ? [b.head] : [],
      );
    expect(tableHeads(withoutMetrics)[0]).to.not.include('cMER');
    const shown = tableHeads(withMetrics)[0];
    expect(shown).to.include.members(['cMER', 'wMER', 'Preference vs OCR [95% CI]']);
    expect(shown).to.not.include('cMER macro');
    const rows = armsSection(withMetrics as ArmsAnalysis, []).find((b) => b.kind === 'table' && b.head.includes('cMER'));
    expect((rows as { rows: string[][] }).rows[0]).to.include.members(['5.00%', '+0.2500 [+0.1000, +0.4000]']);
  });
});
