import { expect } from 'chai';
import {
  allocateEras,
  DEFAULT_ERAS,
  eraIndex,
  hash53,
  largestRemainder,
  linePriority,
  SamplingConfigError,
  seededKey,
  TopK,
  validateEras,
  waterFill,
} from '../../src/openiti/sampling';

describe('openiti/sampling', () => {
  describe('eras', () => {
    it('default eras are the docs/corpus.md#eras table, 10/30/30/30, [from, to) like the config', () => {
      expect(DEFAULT_ERAS.map((e) => e.fraction)).to.deep.equal([0.1, 0.3, 0.3, 0.3]);
      expect(eraIndex(0, DEFAULT_ERAS)).to.equal(0);
      expect(eraIndex(299, DEFAULT_ERAS)).to.equal(0);
      expect(eraIndex(300, DEFAULT_ERAS)).to.equal(0); // OpenITI's 0300AH holds deaths up to 300
      expect(eraIndex(301, DEFAULT_ERAS)).to.equal(1);
      expect(eraIndex(899, DEFAULT_ERAS)).to.equal(2);
      expect(eraIndex(1450, DEFAULT_ERAS)).to.equal(3);
      expect(eraIndex(-1, DEFAULT_ERAS)).to.equal(-1);
      expect(() => validateEras(DEFAULT_ERAS)).not.to.throw();
    });

    it('matches the config defaults exactly', async () => {
      const { ConfigSchema } = await import('../../src/config/schema');
      expect(DEFAULT_ERAS).to.deep.equal(ConfigSchema.parse({}).corpus.eras);
    });

    it('validateEras names the bad era and field', () => {
      expect(() => validateEras([])).to.throw(SamplingConfigError, /at least one era/);
      expect(() => validateEras([{ name: 'a', from: 0, to: 10, fraction: 0.5 }])).to.throw(/fractions sum to 0.5/);
      expect(() => validateEras([{ name: 'a', from: 10, to: 10, fraction: 1 }])).to.throw(
        /eras\[0\] \(a\): from \(10\) must be < to \(10\)/,
      );
      expect(() =>
        validateEras([
          { name: 'a', from: 0, to: 301, fraction: 0.5 },
          { name: 'b', from: 300, to: 600, fraction: 0.5 },
        ]),
      ).to.throw(/a \(0–301\) overlaps b \(300–600\)/);
      expect(() =>
        validateEras([
          { name: 'a', from: 0, to: 300, fraction: 0.5 },
          { name: 'b', from: 300, to: 600, fraction: 0.5 },
        ]),
      ).not.to.throw();
      expect(() =>
        validateEras([
          { name: 'a', from: 0, to: 1, fraction: 0.5 },
          { name: 'a', from: 2, to: 3, fraction: 0.5 },
        ]),
      ).to.throw(/duplicate era name/);
      expect(() => validateEras([{ name: 'a', from: 0, to: 1, fraction: 1.5 }])).to.throw(/fraction: must be a number in \[0, 1\]/);
    });
  });

  describe('largestRemainder', () => {
    it('splits exactly, remainders to the largest fractions', () => {
      expect(largestRemainder(10, [0.1, 0.3, 0.3, 0.3])).to.deep.equal([1, 3, 3, 3]);
      expect(largestRemainder(7, [0.1, 0.3, 0.3, 0.3])).to.deep.equal([1, 2, 2, 2]); // 0.7,2.1,2.1,2.1 → 0.7 gets the extra
      const r = largestRemainder(12345, [0.1, 0.3, 0.3, 0.3]);
      expect(r.reduce((a, b) => a + b)).to.equal(12345);
      expect(largestRemainder(5, [0, 0])).to.deep.equal([0, 0]);
    });
  });

  describe('allocateEras', () => {
    it('gives each era its target when it has the sentences', () => {
      const a = allocateEras(1000, [0.1, 0.3, 0.3, 0.3], [1e6, 1e6, 1e6, 1e6]);
      expect(a.allocated).to.deep.equal([100, 300, 300, 300]);
      expect(a.shortfall).to.deep.equal([0, 0, 0, 0]);
      expect(a.unfilled).to.equal(0);
    });

    it('redistributes shortfalls to eras with spare capacity, by fraction, and reports them', () => {
      const a = allocateEras(1000, [0.1, 0.3, 0.3, 0.3], [1e6, 50, 0, 1e6]);
      expect(a.targets).to.deep.equal([100, 300, 300, 300]);
      expect(a.shortfall).to.deep.equal([0, 250, 300, 0]);
      // 550 to share between era 0 (0.1) and era 3 (0.3): 137.5 / 412.5
      expect(a.received).to.deep.equal([138, 0, 0, 412]); // 137.5 / 412.5: the tie goes to the earlier era
      expect(a.allocated).to.deep.equal([238, 50, 0, 712]);
      expect(a.allocated.reduce((x, y) => x + y)).to.equal(1000);
    });

    it('handles the real slice: only the first era has texts', () => {
      const a = allocateEras(20000, [0.1, 0.3, 0.3, 0.3], [600000, 0, 0, 0]);
      expect(a.allocated).to.deep.equal([20000, 0, 0, 0]);
      expect(a.received).to.deep.equal([18000, 0, 0, 0]);
      expect(a.shortfall).to.deep.equal([0, 6000, 6000, 6000]);
    });

    it('reports what nobody can fill, and never gives to an era of fraction 0', () => {
      const a = allocateEras(100, [0.5, 0.5, 0], [10, 20, 1000]);
      expect(a.allocated).to.deep.equal([10, 20, 0]);
      expect(a.unfilled).to.equal(70);
    });

    it('redistributes in several rounds when a receiving era fills up', () => {
      const a = allocateEras(100, [0.25, 0.25, 0.5], [0, 30, 1000]);
      expect(a.allocated).to.deep.equal([0, 30, 70]);
      expect(a.unfilled).to.equal(0);
    });
  });

  describe('waterFill (max-min fair)', () => {
    it('caps nobody below the level and gives small groups all they have', () => {
      const out = waterFill([5, 100, 1000, 3], 100, [0, 1, 2, 3]);
      expect(out.reduce((a, b) => a + b)).to.equal(100);
      expect(out[0]).to.equal(5);
      expect(out[3]).to.equal(3);
      expect(Math.abs(out[1] - out[2])).to.be.at.most(1);
    });

    it('hands the +1 extras out in tie order', () => {
      expect(waterFill([10, 10, 10], 10, [2, 0, 1])).to.deep.equal([3, 4, 3]);
      expect(waterFill([10, 10, 10], 10, [0, 1, 2])).to.deep.equal([4, 3, 3]);
    });

    it('returns the capacities when the quota exceeds them', () => {
      expect(waterFill([1, 2, 3], 100, [0, 1, 2])).to.deep.equal([1, 2, 3]);
      expect(waterFill([], 5, [])).to.deep.equal([]);
    });

    it('keeps one prolific group from dominating', () => {
      const caps = [1_000_000, 200, 300, 400];
      const out = waterFill(caps, 2000, [0, 1, 2, 3]);
      expect(out).to.deep.equal([1100, 200, 300, 400]);
    });
  });

  describe('hashing and TopK', () => {
    it('seeded keys and priorities are stable and depend on the seed', () => {
      expect(seededKey(42, 'abc')).to.equal(seededKey(42, 'abc'));
      expect(seededKey(42, 'abc')).not.to.equal(seededKey(43, 'abc'));
      expect(linePriority(7, 3)).to.equal(linePriority(7, 3));
      const ps = new Set(Array.from({ length: 1000 }, (_, i) => linePriority(seededKey(1, 'f'), i)));
      expect(ps.size).to.equal(1000);
      expect(hash53('نص')).to.equal(hash53('نص'));
      expect(hash53('نص')).not.to.equal(hash53('نصّ'));
    });

    it('TopK keeps the k smallest priorities and returns them in file order', () => {
      const top = new TopK(3);
      const pri = [50, 10, 40, 30, 20, 60];
      pri.forEach((p, i) => top.offer({ priority: p, index: i, text: `t${i}`, charLen: 2 }));
      expect(top.inFileOrder().map((c) => c.index)).to.deep.equal([1, 3, 4]);
      expect(top.wouldAccept(25, 9)).to.equal(true);
      expect(top.wouldAccept(35, 9)).to.equal(false);
      expect(new TopK(0).wouldAccept(0, 0)).to.equal(false);
    });

    it('priority sampling is roughly uniform over positions', () => {
      const key = seededKey(42, 'file');
      const n = 10_000;
      const top = new TopK(1000);
      for (let i = 0; i < n; i++) top.offer({ priority: linePriority(key, i), index: i, text: '', charLen: 0 });
      const firstHalf = top.inFileOrder().filter((c) => c.index < n / 2).length;
      expect(firstHalf).to.be.within(430, 570);
    });
  });
});
