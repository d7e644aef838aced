/**
 * analysis/stats/block-stats.ts and analysis/stats/clusters.ts: one-line clusters reproduce the per-line bootstrap draw for
 * draw; the permutation p against exact enumeration; clusters from a page pattern; the default contrasts.
 */
import { expect } from 'chai';
import { blockRateInterval, MDE_FACTOR, pairedBlockDelta, type BlockDesign } from '../../../analysis/stats/block-stats';
import { bootstrapRates } from '../../../analysis/stats/bootstrap';
import { clusterIds } from '../../../analysis/stats/clusters';
import { defaultContrasts } from '../../../analysis/study/planned-contrasts';
import { pairedBootstrapDelta } from '../../../analysis/stats/paired';
import { Mulberry32 } from '../../../analysis/stats/resample-rng';
import { referenceDelta } from '../../helpers/reference-resampling';

const lineDesign = (strata: number[]): BlockDesign => ({
  block: Int32Array.from(strata, (_, i) => i),
  stratumOfBlock: Int32Array.from(strata),
});

describe('analysis/stats/block-stats', () => {
  const ref = [10, 20, 15, 30, 12, 8, 25, 40, 5, 18];
  const a = [2, 5, 1, 6, 3, 0, 4, 9, 1, 2];
  const b = [1, 5, 0, 8, 1, 0, 2, 7, 1, 1];
  const strata = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1];

  it('with one line per cluster it is the per-line bootstrap, draw for draw', () => {
    const perLine = bootstrapRates(ref, { a }, {}, { iterations: 500, seed: 9, strata });
    expect(blockRateInterval(ref, a, lineDesign(strata), 500, 9).ci95).to.deep.equal(perLine.rates.a.ci95);
    const d = pairedBootstrapDelta(ref, a, b, { iterations: 500, seed: 9, strata });
    const r = pairedBlockDelta(ref, a, b, lineDesign(strata), { iterations: 500, permutations: 10, seed: 9 });
    expect(r.pooled.ci95![0]).to.be.closeTo(d.ci95![0], 1e-12);
    expect(r.pooled.ci95![1]).to.be.closeTo(d.ci95![1], 1e-12);
    expect(r.pooled.mde).to.be.closeTo(MDE_FACTOR * r.pooled.se!, 1e-15);
    expect(MDE_FACTOR).to.be.closeTo(2.8016, 1e-4);
  });

  it('the permutation p matches exact enumeration of the sign flips', () => {
    // Cluster differences (b − a): −1, 0, −1, +2, −2 | 0, −2, −2, 0, −1. T = −7 edits.
    const D = b.map((x, i) => x - a[i]);
    const nz = D.filter((x) => x !== 0);
    let ge = 0;
    for (let mask = 0; mask < 1 << nz.length; mask++) {
      const t = nz.reduce((s, x, k) => s + ((mask >> k) & 1 ? -x : x), 0);
      if (Math.abs(t) >= 7) ge++;
    }
    const exact = ge / (1 << nz.length);
    const r = pairedBlockDelta(ref, a, b, lineDesign(strata), { iterations: 10, permutations: 40000, seed: 3 });
    expect(r.pooled.p!).to.be.closeTo(exact, 0.01);
    // Identical conditions: ΔCER 0, p exactly 1.
    const same = pairedBlockDelta(ref, a, a, lineDesign(strata), { iterations: 100, permutations: 100, seed: 3 }, true);
    expect([same.pooled.delta, same.pooled.p, same.macro!.delta, same.macro!.p]).to.deep.equal([0, 1, 0, 1]);
  });

  it('the macro figure is the mean of the strata and resamples clusters as wholes', () => {
    const r = pairedBlockDelta(
      ref,
      a,
      b,
      { block: Int32Array.from([0, 0, 1, 1, 1, 2, 2, 3, 3, 3]), stratumOfBlock: Int32Array.from([0, 0, 1, 1]) },
      { iterations: 300, permutations: 300, seed: 1, minClusters: 1 },
      true,
    );
    const d0 = (1 + 0 + 1 - 2 + 2) / (10 + 20 + 15 + 30 + 12);
    const d1 = (0 + 2 + 2 + 0 + 1) / (8 + 25 + 40 + 5 + 18);
    expect(r.macro!.delta).to.be.closeTo(-(d0 + d1) / 2, 1e-12);
    expect(r.pooled.clusters).to.equal(4);
    expect(r.pooled.ci95![0]).to.be.at.most(r.pooled.ci95![1]);
  });
});

describe('analysis/stats/block-stats resampling loops', () => {
  it('draw what mulberry32 draws: the same interval and p as the plain reference on random clustered designs', () => {
    const gen = new Mulberry32(20261128);
    for (let trial = 0; trial < 20; trial++) {
      const n = 50 + Math.floor(gen.next() * 400);
      const strata = 1 + Math.floor(gen.next() * 4);
      const perCluster = 1 + Math.floor(gen.next() * 8);
      const block = Int32Array.from({ length: n }, (_, i) => Math.floor(i / perCluster));
      const clusters = block[n - 1] + 1;
      const stratumOfBlock = Int32Array.from({ length: clusters }, (_, k) => Math.floor((k * strata) / clusters));
      const ref = Array.from({ length: n }, () => 5 + Math.floor(gen.next() * 60));
      const a = ref.map((r) => Math.floor(gen.next() * r * 0.3));
      const b = ref.map((r) => Math.floor(gen.next() * r * 0.3));
      const design = { block, stratumOfBlock };
      const seed = Math.floor(gen.next() * 2 ** 31);
      const got = pairedBlockDelta(ref, a, b, design, { iterations: 300, permutations: 300, seed, minClusters: 1 });
      const want = referenceDelta(ref, a, b, design, 300, 300, seed);
      expect(got.pooled.ci95, `trial ${trial}`).to.deep.equal(want.ci95);
      expect(got.pooled.p, `trial ${trial}`).to.equal(want.p);
      const rate = blockRateInterval(ref, a, design, 300, seed, 1);
      const rateWant = referenceDelta(
        ref,
        a.map(() => 0),
        a,
        design,
        300,
        0,
        seed,
      );
      expect(rate.ci95, `trial ${trial} rate`).to.deep.equal(rateWant.ci95);
    }
  });
});

describe('analysis/clusters', () => {
  it('forms blocks of consecutive lines, or pages from a pattern; an unmatched id is a cluster of its own', () => {
    expect(Array.from(clusterIds(['a', 'b', 'c', 'd', 'e'], { blockLines: 2 }, 'D').ids)).to.deep.equal([0, 0, 1, 1, 2]);
    const ids = ['D/p001_l01', 'D/p001_l02', 'D/p002_l01', 'D/x', 'D/p002_l02', 'D/p003_l01'];
    const c = clusterIds(ids, { blockLines: 25, pagePatterns: { D: 'p(\\d+)_' } }, 'D');
    expect(Array.from(c.ids)).to.deep.equal([0, 0, 1, 2, 3, 4]);
    expect([c.count, c.unmatched]).to.deep.equal([5, 1]);
  });
});

describe('analysis/contrasts (defaults)', () => {
  const arm = (name: string, mode: string, top_k: number | null, extra: Record<string, unknown> = {}) => ({
    name,
    prompt: (mode === 'none' ? 'zero_shot' : 'rag') as 'rag' | 'zero_shot',
    upper_bound: mode === 'gold_query',
    retrieval: { mode: mode as 'dense', top_k, fingerprint: null, k_group: null, ...extra },
  });
  it('every arm vs the baseline, rag vs placebo, variants vs rag, the k series in order', () => {
    const arms = [
      arm('zero_shot', 'none', 0),
      arm('rag_k1', 'dense', 1, { k_group: 'g' }),
      arm('rag', 'dense', 3, { k_group: 'g' }),
      arm('rag_k5', 'dense', 5, { k_group: 'g' }),
      arm('hybrid', 'hybrid', 3),
      arm('placebo', 'random', 3),
      arm('oracle', 'gold_query', 3),
    ];
    const c = defaultContrasts(arms, 'zero_shot').map((x) => `${x.arm}-${x.vs}:${x.kind}`);
    expect(c).to.deep.equal([
      'rag_k1-zero_shot:vs_baseline',
      'rag-zero_shot:vs_baseline',
      'rag_k5-zero_shot:vs_baseline',
      'hybrid-zero_shot:vs_baseline',
      'placebo-zero_shot:vs_baseline',
      'oracle-zero_shot:vs_baseline',
      'rag-placebo:rag_vs_placebo',
      'hybrid-rag:variant_vs_rag',
      'rag-rag_k1:k_series',
      'rag_k5-rag:k_series',
    ]);
  });
});
