import { expect } from 'chai';
import { eraOf, parseDate } from '../../../analysis/score/eras';

describe('analysis/score/eras', () => {
  it('maps death years to eras (300 AH in "0-300", as OpenITI\'s 0300AH) and reads string dates', () => {
    expect([0, 276, 300, 301, 600, 601, 900, 901, 1300].map((d) => eraOf(d))).to.deep.equal([
      '0-300',
      '0-300',
      '0-300',
      '300-600',
      '300-600',
      '600-900',
      '600-900',
      '900+',
      '900+',
    ]);
    expect(eraOf(null)).to.equal('unknown');
    expect(parseDate('0276')).to.equal(276);
    expect(parseDate('276AH')).to.equal(276);
    expect(parseDate('n.d.')).to.equal(null);
    expect(parseDate(undefined)).to.equal(null);
  });
});
