import { expect } from 'chai';
import { ranks, spearman } from '../../../analysis/stats/correlation';

describe('analysis/stats/correlation', () => {
  it('computes Spearman correlation with tied ranks', () => {
    expect(ranks([10, 20, 20, 30])).to.deep.equal([1, 2.5, 2.5, 4]);
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).to.be.closeTo(1, 1e-12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).to.be.closeTo(-1, 1e-12);
    expect(spearman([1, 2], [1, 2])).to.equal(null);
    expect(spearman([1, 1, 1], [1, 2, 3])).to.equal(null);
  });
});
