/**
 * Power before the run (analysis/plan/power.ts): the MDE factor with a Holm family, the SE at the planned lines
 * from the analysis's own block bootstrap, scaled by √(measured / planned), and the lines for a target effect.
 */
import { expect } from 'chai';
import { MDE_FACTOR, pairedBlockDelta } from '../../../analysis/stats/block-stats';
import { clusterIds } from '../../../analysis/stats/clusters';
import { linesNeeded, mdeFactor, normalQuantile, plannedPower } from '../../../analysis/plan/power';
import { mulberry32 } from '../../../src/util/random';

function lines(n: number, seed: number) {
  const r = mulberry32(seed);
  const ref = Float64Array.from({ length: n }, () => 20 + Math.floor(r() * 40));
  const vs = Float64Array.from(ref, (x) => Math.floor(x * r() * 0.4));
  const arm = Float64Array.from(vs, (x) => (r() < 0.3 ? 0 : x));
  return { sampleIds: Array.from({ length: n }, (_, i) => `d/${i}`), ref, vs, arm };
}

describe('analysis/plan-power', () => {
  it("the MDE factor is the analysis's 2.80 with one test and grows with the Holm family", () => {
    expect(normalQuantile(0.975)).to.be.closeTo(1.959964, 1e-5);
    expect(mdeFactor(0.05, 1)).to.be.closeTo(MDE_FACTOR, 1e-5);
    expect(mdeFactor(0.05, 12)).to.be.closeTo(normalQuantile(1 - 0.05 / 24) + 0.841621, 1e-5);
    expect(mdeFactor(0.05, 12)).to.be.above(mdeFactor(0.05, 4));
  });

  it('at the measured lines the SE is the block bootstrap SE; four times the lines halve it', () => {
    const m = lines(400, 3);
    const spec = { blockLines: 25 };
    const { ids, count } = clusterIds(m.sampleIds, spec, 'd');
    const direct = pairedBlockDelta(
      m.ref,
      m.vs,
      m.arm,
      { block: ids, stratumOfBlock: new Int32Array(count) },
      { iterations: 500, permutations: 0, seed: 9 },
    );
    const same = plannedPower({ datasets: { d: { measured: m, plannedLines: 400 } }, clusters: spec, iterations: 500, seed: 9 });
    expect(same.se).to.be.closeTo(direct.pooled.se!, 1e-12);
    const more = plannedPower({ datasets: { d: { measured: m, plannedLines: 1600 } }, clusters: spec, iterations: 500, seed: 9 });
    expect(more.se).to.be.closeTo(direct.pooled.se! / 2, 1e-12);
  });

  it('pools datasets by their planned gold characters and gives the lines for a target', () => {
    const a = lines(200, 1);
    const b = lines(200, 2);
    const p = plannedPower({
      datasets: { A: { measured: a, plannedLines: 200 }, B: { measured: b, plannedLines: 200 } },
      clusters: { blockLines: 10 }, // 20 clusters a dataset: enough for an SE (analysis.min_clusters)
      iterations: 300,
      seed: 1,
    });
    expect(p.se).to.be.below(Math.max(p.datasets.A!, p.datasets.B!));
    expect(linesNeeded({ A: 200, B: 100 }, 0.01, 0.005)).to.deep.equal({ A: 800, B: 400 });
  });
});
