/**
 * analysis/stats/paired.ts against scipy / statsmodels (fixture: bench/python/paired_reference.py, re-run command in
 * its header). Every value to 1e-9; the paired bootstrap reproduces the same resampling indices in Python
 * (mulberry32), so its interval must match, not merely cover the estimate.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { holm, lineDifferences, normalCdf, pairedBootstrapDelta, signTest, wilcoxonSignedRank } from '../../../analysis/stats/paired';
import { FIXTURES } from '../../helpers/shared-data';

interface LineCase {
  d: number[];
  sign: { positive: number; negative: number; ties: number; p: number };
  wilcoxon: { statistic: number; z: number; p: number };
}
interface BootCase {
  ref: number[];
  a: number[];
  b: number[];
  iterations: number;
  seed: number;
  strata?: number[];
  expected: { delta: number; ci95: [number, number]; iterations: number };
}
interface Reference {
  line_tests: Record<string, LineCase>;
  holm: Record<string, { p: number[]; holm: number[] }>;
  bootstrap: Record<string, BootCase>;
}

const REF = JSON.parse(readFileSync(path.join(FIXTURES, 'analysis', 'paired_reference.json'), 'utf8')) as Reference;
const TOL = 1e-9;

describe('analysis/paired (reference: scipy / statsmodels)', () => {
  for (const [name, c] of Object.entries(REF.line_tests)) {
    it(`sign test and Wilcoxon match scipy on ${name} (n=${c.d.length})`, () => {
      const s = signTest(c.d);
      expect({ positive: s.positive, negative: s.negative, ties: s.ties }).to.deep.equal({
        positive: c.sign.positive,
        negative: c.sign.negative,
        ties: c.sign.ties,
      });
      expect(s.p).to.be.closeTo(c.sign.p, TOL);
      const w = wilcoxonSignedRank(c.d);
      expect(w.statistic).to.be.closeTo(c.wilcoxon.statistic, TOL);
      // scipy reports −|z| for a two-sided test; ours keeps the sign (positive = the second condition worse).
      expect(-Math.abs(w.z!)).to.be.closeTo(c.wilcoxon.z, TOL);
      expect(w.p).to.be.closeTo(c.wilcoxon.p, TOL);
    });
  }

  it('tiny p-values keep their relative precision (not just 1e-9 absolute)', () => {
    const c = REF.line_tests.lines_1500;
    expect(signTest(c.d).p! / c.sign.p).to.be.closeTo(1, 1e-9);
    expect(wilcoxonSignedRank(c.d).p! / c.wilcoxon.p).to.be.closeTo(1, 1e-6);
  });

  it('all-zero differences have no test (null p), not p = 1', () => {
    expect(signTest([0, 0, 0]).p).to.equal(null);
    expect(wilcoxonSignedRank([0, 0]).p).to.equal(null);
  });

  for (const [name, c] of Object.entries(REF.holm)) {
    it(`Holm matches statsmodels on ${name}`, () => {
      const got = holm(c.p);
      got.forEach((x, i) => expect(x).to.be.closeTo(c.holm[i], TOL));
    });
  }

  it('Holm leaves null p-values out of the family', () => {
    const got = holm([0.01, null, 0.04]);
    expect(got[1]).to.equal(null);
    expect(got[0]).to.be.closeTo(0.02, 1e-15);
    expect(got[2]).to.be.closeTo(0.04, 1e-15);
  });

  for (const [name, c] of Object.entries(REF.bootstrap)) {
    it(`paired bootstrap reproduces the Python resampling on ${name}`, () => {
      const r = pairedBootstrapDelta(c.ref, c.a, c.b, { iterations: c.iterations, seed: c.seed, strata: c.strata });
      expect(r.iterations).to.equal(c.expected.iterations);
      expect(r.delta).to.be.closeTo(c.expected.delta, TOL);
      expect(r.ci95![0]).to.be.closeTo(c.expected.ci95[0], TOL);
      expect(r.ci95![1]).to.be.closeTo(c.expected.ci95[1], TOL);
    });
  }

  it('paired bootstrap is deterministic per seed and moves with it', () => {
    const c = REF.bootstrap.plain;
    const a = pairedBootstrapDelta(c.ref, c.a, c.b, { iterations: 200, seed: 1 });
    expect(pairedBootstrapDelta(c.ref, c.a, c.b, { iterations: 200, seed: 1 })).to.deep.equal(a);
    expect(pairedBootstrapDelta(c.ref, c.a, c.b, { iterations: 200, seed: 2 }).ci95).to.not.deep.equal(a.ci95);
  });

  it('lineDifferences skips empty gold lines and divides once (equal ratios tie exactly)', () => {
    expect(lineDifferences([3, 0, 6], [1, 5, 2], [2, 0, 4])).to.deep.equal([1 / 3, 2 / 6]);
    expect(1 / 3).to.equal(2 / 6);
  });

  it('normalCdf matches scipy.stats.norm.cdf (absolute 1e-15; far tail relative 1e-12)', () => {
    expect(normalCdf(0)).to.equal(0.5);
    expect(normalCdf(-1.959963984540054)).to.be.closeTo(0.025, 1e-15);
    expect(normalCdf(-0.3)).to.be.closeTo(0.3820885778110474, 1e-15);
    expect(normalCdf(3)).to.be.closeTo(1 - 0.0013498980316300933, 1e-15);
    expect(normalCdf(-8.5) / 9.47953482220325e-18).to.be.closeTo(1, 1e-12);
    expect(normalCdf(-12) / 1.776482112077653e-33).to.be.closeTo(1, 1e-12);
  });
});
