import { expect } from 'chai';
import { eraOf, globToRegExp, ocrCerBand, parseDate, ranks, round, scoreBucket, sourceMatcher, spearman } from '../../analysis/format';

describe('analysis/format', () => {
  it('buckets top-1 scores with the documented keys (docs/outputs.md#retrieval_analysisjson)', () => {
    expect([0.95, 0.8, 0.7999, 0.7, 0.65, 0.6, 0.59, -0.1].map(scoreBucket)).to.deep.equal([
      '0.8+',
      '0.8+',
      '0.7–0.8',
      '0.7–0.8',
      '0.6–0.7',
      '0.6–0.7',
      '<0.6',
      '<0.6',
    ]);
  });

  it('bands the raw OCR line CER', () => {
    expect(ocrCerBand(0, 100)).to.equal('<5%');
    expect(ocrCerBand(5, 100)).to.equal('5–15%');
    expect(ocrCerBand(15, 100)).to.equal('15–30%');
    expect(ocrCerBand(30, 100)).to.equal('>30%');
    expect(ocrCerBand(3, 0)).to.equal('>30%');
    expect(ocrCerBand(0, 0)).to.equal('<5%');
  });

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

  it('matches version-URI globs against whole URIs and path segments', () => {
    expect(globToRegExp('0276IbnQutayba.Adab*').test('0276IbnQutayba.AdabX')).to.equal(true);
    expect(globToRegExp('a.b').test('axb')).to.equal(false);
    const m = sourceMatcher('0276IbnQutayba.Adab*');
    expect(m('0276IbnQutayba.Adab.JK000001-ara1')).to.equal(true);
    expect(m('data/0276IbnQutayba/0276IbnQutayba.Adab/0276IbnQutayba.Adab.JK000001-ara1.mARkdown')).to.equal(true);
    expect(m('0276IbnQutayba.Macarif.JK1-ara1')).to.equal(false);
  });

  it('rounds to fixed decimals and maps non-finite to null', () => {
    expect(round(0.1234567)).to.equal(0.123457);
    expect(round(-0.0000001)).to.equal(0);
    expect(round(NaN)).to.equal(null);
    expect(round(null)).to.equal(null);
    expect(round(12.3456, 2)).to.equal(12.35);
  });

  it('computes Spearman correlation with tied ranks', () => {
    expect(ranks([10, 20, 20, 30])).to.deep.equal([1, 2.5, 2.5, 4]);
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).to.be.closeTo(1, 1e-12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).to.be.closeTo(-1, 1e-12);
    expect(spearman([1, 2], [1, 2])).to.equal(null);
    expect(spearman([1, 1, 1], [1, 2, 3])).to.equal(null);
  });
});
