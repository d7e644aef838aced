import { expect } from 'chai';
import { ocrCerBand, scoreBucket } from '../../../analysis/score/bands';

describe('analysis/score/bands', () => {
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
});
