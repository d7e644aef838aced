import { expect } from 'chai';
import { firstRelevantRank, rankingMetrics } from '../../src/eval/metrics';

describe('eval/metrics', () => {
  it('recall@k, precision@k and MRR on a hand-computed example', () => {
    const qs = [
      { relevant: [7], ranked: [7, 1, 2] }, // rank 1
      { relevant: [3, 4], ranked: [1, 4, 3] }, // rank 2, two relevant in top 3
      { relevant: [9], ranked: [1, 2, 5] }, // miss
      { relevant: [5], ranked: [] }, // no retrieval
    ];
    const m = rankingMetrics(qs, [1, 3]);
    expect(m.queries).to.equal(4);
    expect(m.recall).to.deep.equal({ '@1': 1 / 4, '@3': 2 / 4 });
    expect(m.precision['@1']).to.be.closeTo(1 / 4, 1e-12);
    expect(m.precision['@3']).to.be.closeTo((1 / 3 + 2 / 3) / 4, 1e-12);
    expect(m.mrr).to.be.closeTo((1 + 1 / 2) / 4, 1e-12);
    expect(m.mrr_at).to.equal(3);
    expect(firstRelevantRank(qs[1])).to.equal(2);
    expect(firstRelevantRank(qs[2])).to.equal(null);
  });

  it('MRR only counts ranks within the largest cut-off; bad cut-offs are refused', () => {
    expect(rankingMetrics([{ relevant: [1], ranked: [5, 6, 1] }], [1, 2]).mrr).to.equal(0);
    expect(rankingMetrics([], [1]).recall['@1']).to.equal(0);
    expect(() => rankingMetrics([], [0])).to.throw(/positive integers/);
  });
});
