/**
 * One answer per comparison: in the default study (the arms rag and zero_shot, analyzed by the same `run`), the
 * comparison files state arms.json's figures — ΔCER rag vs zero_shot with its interval and p, rag vs OCR,
 * zero_shot vs OCR and each arm's CER / WER interval — per dataset and pooled; ΔWER and the OCR text's
 * intervals from the same analysis's design figures (seeded as arms.json's, never in arms.json). Without the stage's
 * analysis the files analyse their two arms in memory and state the same figures; rag alone gets its figures
 * against the OCR text.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import { analyzeArms } from '../../../analysis/study/arms';
import { round } from '../../../analysis/format';
import { lineKey } from '../../../analysis/inputs/records';
import type { ArmsAnalysis } from '../../../analysis/study/types';
import { documentOptions, readJson as read, runDefaultStudy, STATS } from '../default-arms-study';

describe('analysis/documents/arms-figures: the comparison files take arms.json figures', function () {
  this.timeout(120_000);
  let root: string;
  let arms: ArmsAnalysis;
  const arm = (name: string) => arms.arms.find((a) => a.name === name)!;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'arms-figures-'));
    await runDefaultStudy(root, ['D1', 'D2']);
    arms = read(path.join(root, 'study', 'arms.json'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** The same arms analysis run again in memory, with what it keeps out of arms.json (run once, on first use). */
  let again: Promise<ArmsAnalysis> | null = null;
  const inMemory = () =>
    (again ??= analyzeArms({
      resultsDir: root,
      baseline: 'zero_shot',
      defaultArms: { topK: 3, model: 'test/model' },
      bootstrap: documentOptions(root).bootstrap,
      ...STATS,
      write: false,
    }));

  const scopes = () => [
    ...['D1', 'D2'].map((ds) => ({
      label: ds,
      boot: read(path.join(root, 'arms', 'rag', ds, 'comparison_vs_phase2.json')).bootstrap,
      rag: arm('rag').datasets[ds],
      zeroShot: arm('zero_shot').datasets[ds],
    })),
    {
      label: 'pooled',
      boot: read(path.join(root, 'arms', 'rag', 'comparison.json')).overall.bootstrap,
      rag: arm('rag'),
      zeroShot: arm('zero_shot'),
    },
  ];

  it("gives comparison_vs_phase2.json's and comparison.json's delta_cer as arms.json's rag vs_baseline, per dataset and pooled", () => {
    for (const { label, boot, rag } of scopes()) {
      const vb = rag.vs_baseline!;
      expect(vb.ci, label).to.not.equal(null);
      expect(boot.delta_cer.estimate, label).to.equal(vb.delta_cer);
      expect(boot.delta_cer.ci95, label).to.deep.equal(vb.ci);
      expect(boot.delta_cer.p_value, label).to.equal(round(vb.p, 4));
      expect(boot.delta_cer.se, label).to.equal(vb.se);
      expect(boot.delta_cer.mde, label).to.equal(vb.mde);
      expect(boot.delta_cer.reason, label).to.equal(vb.reason);
    }
  });

  it("gives each arm's CER / WER interval and its ΔCER vs OCR as arms.json states them", () => {
    for (const { label, boot, rag, zeroShot } of scopes()) {
      expect(boot.cer_ci95.phase5, label).to.deep.equal(rag.cer_ci);
      expect(boot.cer_ci95.phase2, label).to.deep.equal(zeroShot.cer_ci);
      expect(boot.wer_ci95.phase5, label).to.deep.equal(rag.wer_ci);
      expect(boot.wer_ci95.phase2, label).to.deep.equal(zeroShot.wer_ci);
      expect(boot.delta_cer_phase5_vs_ocr.ci95, label).to.deep.equal(rag.vs_ocr.ci);
      expect(boot.delta_cer_phase2_vs_ocr.ci95, label).to.deep.equal(zeroShot.vs_ocr.ci);
      expect(boot.cer_ci95.ocr, label).to.not.equal(null);
      expect(boot.delta_wer.ci95, label).to.not.equal(null);
    }
  });

  it("gives ΔWER and the OCR text's intervals as the arms analysis's design figures, which arms.json leaves out", async () => {
    const ran = await inMemory();
    expect(Object.keys(arms)).to.not.include('design_figures');
    for (const { label, boot } of scopes()) {
      const own = ran.design_figures![label === 'pooled' ? '*pooled*' : label];
      expect(own.delta_wer!.ci, label).to.not.equal(null);
      expect(boot.delta_wer.ci95, label).to.deep.equal(own.delta_wer!.ci);
      expect(boot.delta_wer.estimate, label).to.equal(own.delta_wer!.delta_cer);
      expect(boot.cer_ci95.ocr, label).to.deep.equal(own.ocr_cer_ci);
      expect(boot.wer_ci95.ocr, label).to.deep.equal(own.ocr_wer_ci);
      expect(boot.clusters, label).to.equal(own.clusters);
    }
  });

  it("takes metrics.json's edit breakdown and error_changes.json's counts from the arms analysis's design edits, which arms.json leaves out", async () => {
    const ran = await inMemory();
    expect(Object.keys(arms)).to.not.include('design_edits');
    for (const ds of ['D1', 'D2']) {
      const edits = [...ran.design_edits!].filter(([key]) => key.startsWith(lineKey(ds, '')));
      expect(edits.length, ds).to.equal(40);
      const sum = (pick: (e: (typeof edits)[number][1]) => number) => edits.reduce((n, [, e]) => n + pick(e), 0);
      const metrics = read(path.join(root, 'arms', 'rag', ds, 'metrics.json'));
      expect(metrics.corrected.substitutions, ds).to.equal(sum((e) => e.rag.substitutions));
      expect(metrics.corrected.deletions, ds).to.equal(sum((e) => e.rag.deletions));
      expect(metrics.ocr_baseline.insertions + metrics.ocr_baseline.deletions, ds).to.equal(sum((e) => e.ocr.insertions + e.ocr.deletions));
      const changes = read(path.join(root, 'arms', 'rag', ds, 'error_changes.json'));
      expect(changes.phase5.totals.fixed, ds).to.equal(sum((e) => e.ragChanges!.fixed.length));
      expect(changes.phase5.totals.fixed, ds).to.be.greaterThan(0);
      expect(changes.phase2.totals.introduced, ds).to.equal(sum((e) => e.zeroShotChanges!.introduced.length));
      expect(changes.phase2.totals.fixed, ds).to.equal(sum((e) => e.zeroShotChanges!.fixed.length));
    }
  });

  it("gives the same block without the stage's analysis: the files then analyse their two arms themselves, in memory", async () => {
    const before = read(path.join(root, 'arms', 'rag', 'comparison.json'));
    const perDataset = read(path.join(root, 'arms', 'rag', 'D1', 'comparison_vs_phase2.json'));
    await analyzeDesignFiles(documentOptions(root));
    expect(read(path.join(root, 'arms', 'rag', 'comparison.json'))).to.deep.equal(before);
    expect(read(path.join(root, 'arms', 'rag', 'D1', 'comparison_vs_phase2.json'))).to.deep.equal(perDataset);
    expect(before.overall.bootstrap.delta_cer.ci95).to.deep.equal(arm('rag').vs_baseline!.ci);
  });

  it('analyses rag alone where a dataset has no zero_shot lines: its figures against the OCR text, no comparison', async () => {
    const alone = await analyzeDesignFiles({ ...documentOptions(root), baselineDir: null });
    expect(alone.overall.zero_shot_cer).to.equal(null);
    const boot = read(path.join(root, 'arms', 'rag', 'D1', 'comparison_vs_phase2.json')).bootstrap;
    const rag = arm('rag').datasets.D1;
    expect([boot.delta_cer, boot.delta_wer, boot.delta_cer_phase2_vs_ocr, boot.cer_ci95.phase2]).to.deep.equal([null, null, null, null]);
    // The same lines, clusters and seeds as arms.json's rag: the same figures.
    expect(boot.delta_cer_phase5_vs_ocr.estimate).to.equal(rag.vs_ocr.delta_cer);
    expect(rag.vs_ocr.ci).to.not.equal(null);
    expect(boot.delta_cer_phase5_vs_ocr.ci95).to.deep.equal(rag.vs_ocr.ci);
    expect(boot.cer_ci95.phase5).to.deep.equal(rag.cer_ci);
    expect(boot.cer_ci95.ocr).to.not.equal(null);
  });
});
