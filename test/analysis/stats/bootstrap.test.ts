import { expect } from 'chai';
import { bootstrapRates, mulberry32, quantileSorted, seedFor } from '../../../analysis/stats/bootstrap';

describe('analysis/bootstrap', () => {
  it('mulberry32 is deterministic per seed and stays in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).to.deep.equal(Array.from({ length: 1000 }, () => b()));
    expect(xs.slice(0, 5)).to.not.deep.equal(Array.from({ length: 5 }, () => c()));
    expect(Math.min(...xs)).to.be.at.least(0);
    expect(Math.max(...xs)).to.be.below(1);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).to.be.closeTo(0.5, 0.05);
  });

  it('seedFor gives stable, key-dependent seeds', () => {
    expect(seedFor(42, 'KHATT')).to.equal(seedFor(42, 'KHATT'));
    expect(seedFor(42, 'KHATT')).to.not.equal(seedFor(42, 'PATS'));
    expect(seedFor(42, 'KHATT')).to.not.equal(seedFor(43, 'KHATT'));
  });

  it('quantileSorted interpolates like numpy (type 7)', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).to.equal(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0.025)).to.be.closeTo(1.075, 1e-12);
    expect(quantileSorted([5], 0.9)).to.equal(5);
    expect(Number.isNaN(quantileSorted([], 0.5))).to.equal(true);
  });

  const ref = [10, 12, 8, 20, 15, 9, 11, 14, 7, 13];
  const base = [2, 3, 1, 5, 4, 2, 2, 3, 1, 3];
  const better = [1, 2, 1, 3, 2, 1, 2, 2, 0, 2];

  it('reports full-sample ratios as estimates and paired delta intervals', () => {
    const r = bootstrapRates(ref, { a: base, b: better }, { d: ['a', 'b'] }, { iterations: 2000, seed: 1 });
    const sr = ref.reduce((s, x) => s + x, 0);
    expect(r.rates.a.estimate).to.equal(26 / sr);
    expect(r.rates.b.estimate).to.equal(16 / sr);
    expect(r.deltas.d.estimate).to.be.closeTo(16 / sr - 26 / sr, 1e-15);
    const [lo, hi] = r.deltas.d.ci95!;
    expect(lo).to.be.below(r.deltas.d.estimate!);
    expect(hi).to.be.above(r.deltas.d.estimate!);
    // b is better on every line, so every resample has a negative delta.
    expect(hi).to.be.below(0);
    expect(r.deltas.d.significant).to.equal(true);
    expect(r.deltas.d.p_value).to.equal(0);
    expect(r.iterations).to.equal(2000);
  });

  it('is reproducible for a seed and changes with the seed', () => {
    const run = (seed: number) => bootstrapRates(ref, { a: base, b: better }, { d: ['a', 'b'] }, { iterations: 500, seed });
    expect(run(7)).to.deep.equal(run(7));
    expect(run(7).deltas.d.ci95).to.not.deep.equal(run(8).deltas.d.ci95);
  });

  it('gives a zero-width interval for identical series', () => {
    const r = bootstrapRates(ref, { a: base, b: base }, { d: ['a', 'b'] }, { iterations: 300, seed: 3 });
    expect(r.deltas.d.estimate).to.equal(0);
    expect(r.deltas.d.ci95).to.deep.equal([0, 0]);
    expect(r.deltas.d.significant).to.equal(false);
    expect(r.deltas.d.p_value).to.equal(1);
  });

  it('resamples within strata when asked (stratum sizes are kept)', () => {
    // Stratum 0 always has rate 0, stratum 1 always rate 1, equal reference mass → every resample gives 0.5.
    const r = bootstrapRates([1, 1, 1, 1], { a: [0, 0, 1, 1] }, {}, { iterations: 200, seed: 5, strata: [0, 0, 1, 1] });
    expect(r.rates.a.ci95).to.deep.equal([0.5, 0.5]);
    const free = bootstrapRates([1, 1, 1, 1], { a: [0, 0, 1, 1] }, {}, { iterations: 200, seed: 5 });
    expect(free.rates.a.ci95![0]).to.be.below(0.5);
  });

  it('handles an empty sample and rejects mismatched inputs', () => {
    const r = bootstrapRates([], { a: [] }, {}, { iterations: 10, seed: 1 });
    expect(r.rates.a).to.deep.equal({ estimate: null, ci95: null });
    expect(() => bootstrapRates([1, 2], { a: [1] }, {}, { iterations: 1, seed: 1 })).to.throw(/series "a" has 1 values, expected 2/);
    expect(() => bootstrapRates([1], { a: [1] }, { d: ['a', 'zz'] }, { iterations: 1, seed: 1 })).to.throw(/unknown series/);
  });
});
