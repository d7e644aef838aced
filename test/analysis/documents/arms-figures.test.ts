/**
 * One answer per comparison: in the default study (the arms rag and zero_shot, analyzed by the same `run`), the
 * comparison files state arms.json's figures — ΔCER rag vs zero_shot with its interval and p, rag vs OCR,
 * zero_shot vs OCR and each arm's CER / WER interval — per dataset and pooled; ΔWER and the OCR text's
 * intervals from the same analysis's design figures (seeded as arms.json's, never in arms.json). Without the arms
 * analysis the files measure their block themselves, from other resamples.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import { analyzeArms } from '../../../analysis/study/arms';
import { round } from '../../../analysis/format';
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
    const again = await analyzeArms({
      resultsDir: root,
      baseline: 'zero_shot',
      defaultArms: { topK: 3, model: 'test/model' },
      bootstrap: documentOptions(root).bootstrap,
      ...STATS,
      write: false,
    });
    expect(Object.keys(arms)).to.not.include('design_figures');
    for (const { label, boot } of scopes()) {
      const own = again.design_figures![label === 'pooled' ? '*pooled*' : label];
      expect(own.delta_wer.ci, label).to.not.equal(null);
      expect(boot.delta_wer.ci95, label).to.deep.equal(own.delta_wer.ci);
      expect(boot.delta_wer.estimate, label).to.equal(own.delta_wer.delta_cer);
      expect(boot.cer_ci95.ocr, label).to.deep.equal(own.ocr_cer_ci);
      expect(boot.wer_ci95.ocr, label).to.deep.equal(own.ocr_wer_ci);
      expect(boot.clusters, label).to.equal(own.clusters);
    }
  });

  it('measures its own block when the arms analysis did not run (the intervals then come from other resamples)', async () => {
    const before = read(path.join(root, 'arms', 'rag', 'comparison.json')).overall.bootstrap;
    await analyzeDesignFiles(documentOptions(root));
    const own = read(path.join(root, 'arms', 'rag', 'comparison.json')).overall.bootstrap;
    expect(own.delta_cer.estimate).to.equal(arm('rag').vs_baseline!.delta_cer);
    expect(own.delta_cer.ci95).to.not.deep.equal(arm('rag').vs_baseline!.ci);
    expect(own.delta_wer.estimate).to.equal(before.delta_wer.estimate);
    expect(own.delta_wer.ci95).to.not.deep.equal(before.delta_wer.ci95);
    expect(own.cer_ci95.ocr).to.not.deep.equal(before.cer_ci95.ocr);
  });
});
