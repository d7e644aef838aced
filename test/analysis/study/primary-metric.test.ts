import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scoreFiles } from '../../../analysis/outside/score-files';
import { pairedRatioDelta } from '../../../analysis/stats/ratio-delta';

/**
 * 300 lines where the system and the OCR disagree on the sign of the difference: the OCR adds 4–6 letters to a
 * correct line (CER 1–1.5, cMER 0.5–0.6: insertions also grow the alignment), the system substitutes 3–4 of 4
 * letters (CER = cMER = 0.75–1). So ΔCER(system − ocr) < 0 and ΔcMER > 0.
 */
function study(dir: string): { gold: string; ocr: string; system: string } {
  const n = 300;
  const files = { gold: path.join(dir, 'gold.txt'), ocr: path.join(dir, 'ocr.txt'), system: path.join(dir, 'system.txt') };
  const lines = (f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';
  writeFileSync(
    files.gold,
    lines(() => 'abcd'),
  );
  writeFileSync(
    files.ocr,
    lines((i) => 'abcd' + 'x'.repeat(4 + (i % 3))),
  );
  writeFileSync(
    files.system,
    lines((i) => (i % 2 ? 'wxyz' : 'wxyd')),
  );
  return files;
}

const run = (dir: string, primaryMetric?: 'cer' | 'cmer', report = false) => {
  const f = study(dir);
  return scoreFiles({
    resultsDir: dir,
    gold: f.gold,
    ocr: f.ocr,
    systems: [{ name: 'system', file: f.system }],
    bootstrap: { iterations: 300 },
    ...(primaryMetric ? { primaryMetric } : {}),
    report,
  });
};
const tmp = () => mkdtempSync(path.join(tmpdir(), 'primary-metric-'));

describe('analysis.primary_metric: the planned contrasts in ΔCER or ΔcMER', function () {
  this.timeout(180_000);

  it('by default the contrast is ΔCER (no metric key), arms.json says cer', async () => {
    const dir = tmp();
    const { analysis } = await run(dir);
    const c = analysis.contrasts.find((x) => x.arm === 'system' && x.vs === 'ocr')!;
    const [sys, ocr] = ['system', 'ocr'].map((n) => analysis.arms.find((a) => a.name === n)!);
    expect(c).to.not.have.property('metric');
    expect(c.delta_cer).to.be.below(0);
    expect(c.delta_cer).to.be.closeTo(sys.cer! - ocr.cer!, 1e-5);
    expect(c.ci![1]).to.be.below(0);
    expect(sys.vs_baseline!.p_holm).to.equal(c.p_holm);
    const arms = JSON.parse(readFileSync(path.join(dir, 'study', 'arms.json'), 'utf8'));
    expect(arms.primary_metric).to.equal('cer');
  });

  it('with cmer the contrast, its interval and its Holm p follow ΔcMER, the opposite sign of ΔCER here', async () => {
    const dir = tmp();
    const { analysis } = await run(dir, 'cmer', true);
    const c = analysis.contrasts.find((x) => x.arm === 'system' && x.vs === 'ocr')!;
    const [sys, ocr] = ['system', 'ocr'].map((n) => analysis.arms.find((a) => a.name === n)!);
    expect(c.metric).to.equal('cmer');
    expect(c.delta_cer).to.be.above(0);
    expect(c.delta_cer).to.be.closeTo(sys.cmer! - ocr.cmer!, 1e-5);
    expect(c.ci![0]).to.be.above(0);
    expect(c.ci![0]).to.be.at.most(c.delta_cer!);
    expect(c.ci![1]).to.be.at.least(c.delta_cer!);
    expect(c.p_holm).to.be.below(0.01);
    expect(c.worse).to.equal(300); // every line's cMER is higher than the OCR's
    // The arm's own vs_baseline stays ΔCER, and takes no Holm p from the ΔcMER family.
    expect(sys.vs_baseline!.delta_cer).to.be.below(0);
    expect(sys.vs_baseline!.p_holm).to.equal(null);
    const arms = JSON.parse(readFileSync(path.join(dir, 'study', 'arms.json'), 'utf8'));
    expect(arms.primary_metric).to.equal('cmer');
    const md = readFileSync(path.join(dir, 'study', 'report.md'), 'utf8');
    expect(md).to.match(/\*\*system − ocr\*\* \(300 paired lines\): ΔcMER \+/);
    expect(md).to.include('ΔcMER = cMER(arm) − cMER(vs)');
    expect(md).to.include('ΔcMER vs the baseline arm (forest plot)');
    expect(md).to.include('Contrast (ΔcMER = cMER(arm) − cMER(vs))');
    expect(md).to.include('p = block permutation test of the printed ΔcMER');
  });

  it('ratio-delta: each arm its own denominator; a resample is the difference of the two ratios of sums', () => {
    // Two clusters; arm a: 1/2 and 3/6, arm b: 2/2 and 0/2 → Δ = (2/4) − (4/8) = 0, though Σ(eb − ea) / Σ na ≠ 0.
    const design = { block: Int32Array.from([0, 1]), stratumOfBlock: Int32Array.from([0, 0]) };
    const r = pairedRatioDelta({ edits: [1, 3], totals: [2, 6] }, { edits: [2, 0], totals: [2, 2] }, design, {
      iterations: 200,
      permutations: 200,
      seed: 1,
      minClusters: 2,
    });
    expect(r.pooled.delta).to.equal(0);
    // Resamples: both clusters of a and b drawn together: {0,0}: 1 − 0.5, {1,1}: 0 − 0.5, {0,1}: 0.
    expect(r.pooled.ci95![0]).to.be.closeTo(-0.5, 1e-9);
    expect(r.pooled.ci95![1]).to.be.closeTo(0.5, 1e-9);
  });
});
