/**
 * The block bootstrap and permutation test of analysis/stats/block-stats.ts written the plain way, for checking its
 * loops draw for draw (test/analysis/stats/block-stats.test.ts) and timing them against it (bench/resample-draws.ts).
 */
import type { BlockDesign } from '../../analysis/stats/block-stats';
import { quantileSorted, seedFor } from '../../analysis/stats/bootstrap';
import { Mulberry32 } from '../../analysis/stats/resample-rng';

/**
 * The resampling written the plain way — per-line values summed per cluster, a cluster drawn as
 * `groups[s][⌊next() · n⌋]` with Mulberry32.next(), a flip when next() < ½: its pooled ΔCER interval and p.
 */
export function referenceDelta(
  ref: ArrayLike<number>,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  d: BlockDesign,
  iterations: number,
  permutations: number,
  seed: number,
) {
  const sums = (v: ArrayLike<number>) => {
    const out = new Array<number>(d.stratumOfBlock.length).fill(0);
    for (let i = 0; i < v.length; i++) out[d.block[i]] += v[i];
    return out;
  };
  const [R, A, B] = [sums(ref), sums(a), sums(b)];
  const D = B.map((x, k) => x - A[k]);
  const groups: number[][] = [];
  d.stratumOfBlock.forEach((st, k) => (groups[st] ??= []).push(k));
  const rng = new Mulberry32(seed);
  const draws: number[] = [];
  for (let it = 0; it < iterations; it++) {
    let r = 0,
      dd = 0;
    for (const g of groups) {
      let rs = 0,
        ds = 0;
      for (let k = 0; k < g.length; k++) {
        const c = g[Math.floor(rng.next() * g.length)];
        rs += R[c];
        ds += D[c];
      }
      r += rs;
      dd += ds;
    }
    if (r > 0) draws.push(dd / r);
  }
  const totalRef = R.reduce((x, y) => x + y, 0);
  const observed = Math.abs(D.reduce((x, y) => x + y, 0)) * (1 - 1e-12);
  const perm = new Mulberry32(seedFor(seed, 'permutation'));
  let ge = 0;
  for (let it = 0; it < permutations; it++) {
    let t = 0;
    for (const g of groups) {
      let ds = 0;
      for (const c of g) ds += perm.next() < 0.5 ? -D[c] : D[c];
      t += ds;
    }
    if (Math.abs(t) >= observed) ge++;
  }
  const sorted = Float64Array.from(draws).sort();
  return { ci95: [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)], p: (1 + ge) / (1 + permutations), totalRef };
}
