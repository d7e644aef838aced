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

  it('bands the raw OCR line CER at 2 / 5 / 10 / 20 %, an empty gold line by whether the OCR is empty', () => {
    expect([0, 1, 2, 4, 5, 9, 10, 19, 20, 50].map((e) => ocrCerBand(e, 100))).to.deep.equal([
      '0–2%',
      '0–2%',
      '2–5%',
      '2–5%',
      '5–10%',
      '5–10%',
      '10–20%',
      '10–20%',
      '>20%',
      '>20%',
    ]);
    expect(ocrCerBand(0, 0)).to.equal('0–2%');
    expect(ocrCerBand(2, 0)).to.equal('>20%');
  });
});
