import { expect } from 'chai';
import { batchEnds } from '../../src/embed/batch-plan';

/** Padded tokens plus runCost per batch, for the cut `ends` of sorted `lengths`. */
function planCost(lengths: number[], ends: number[], runCost: number): number {
  let cost = 0;
  let start = 0;
  for (const end of ends) {
    cost += (end - start) * lengths[start] + runCost;
    start = end;
  }
  return cost;
}

/** The least cost over every cut into batches of at most maxRows (exhaustive; small n only). */
function bruteForceCost(lengths: number[], maxRows: number, runCost: number, from = 0): number {
  if (from === lengths.length) return 0;
  let min = Infinity;
  for (let end = from + 1; end <= Math.min(lengths.length, from + maxRows); end++)
    min = Math.min(min, (end - from) * lengths[from] + runCost + bruteForceCost(lengths, maxRows, runCost, end));
  return min;
}

/** Deterministic pseudo-random sorted lengths (longest first). */
function sortedLengths(n: number, seed: number): number[] {
  let x = seed;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) % 1000) / 1000;
  return Array.from({ length: n }, () => 5 + Math.floor(next() ** 3 * 120)).sort((a, b) => b - a);
}

describe('embed/batch-plan', () => {
  it('cuts texts of equal length into runs of maxRows, the longest runs first', () => {
    expect(batchEnds(Array(40).fill(25), 32)).to.deep.equal([32, 40]);
    expect(batchEnds(Array(64).fill(25), 32)).to.deep.equal([32, 64]);
  });

  it('gives a long outlier a batch of its own instead of padding the others to its length', () => {
    const lengths = [108, ...Array(31).fill(34), ...Array(8).fill(30)];
    const ends = batchEnds(lengths, 32);
    expect(ends[0]).to.equal(1);
    expect(planCost(lengths, ends, 16)).to.be.below(planCost(lengths, [32, 40], 16));
  });

  it('with an infinite run cost makes the fewest batches: fixed runs of maxRows', () => {
    const lengths = sortedLengths(200, 7);
    expect(batchEnds(lengths, 32, Infinity)).to.deep.equal([32, 64, 96, 128, 160, 192, 200]);
  });

  it('covers every text once, in order, with at most maxRows a batch', () => {
    for (const seed of [1, 2, 3]) {
      const lengths = sortedLengths(500, seed);
      const ends = batchEnds(lengths, 32);
      expect(ends[ends.length - 1]).to.equal(500);
      ends.forEach((end, b) => {
        const start = b === 0 ? 0 : ends[b - 1];
        expect(end - start).to.be.within(1, 32);
      });
    }
    expect(batchEnds([], 32)).to.deep.equal([]);
  });

  it('finds the least-cost cut (checked against every cut of small lists)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const lengths = sortedLengths(6 + (seed % 7), seed);
      const maxRows = 1 + (seed % 5);
      for (const runCost of [0, 3, 16]) {
        const ends = batchEnds(lengths, maxRows, runCost);
        expect(planCost(lengths, ends, runCost), `seed ${seed}, maxRows ${maxRows}, runCost ${runCost}`).to.equal(
          bruteForceCost(lengths, maxRows, runCost),
        );
      }
    }
  });
});
