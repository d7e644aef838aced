import { expect } from 'chai';
import { round } from '../../analysis/format';

describe('analysis/format', () => {
  it('rounds to fixed decimals and maps non-finite to null', () => {
    expect(round(0.1234567)).to.equal(0.123457);
    expect(round(-0.0000001)).to.equal(0);
    expect(round(NaN)).to.equal(null);
    expect(round(null)).to.equal(null);
    expect(round(12.3456, 2)).to.equal(12.35);
  });
});
