import { expect } from 'chai';
import { isRelevantOverlap } from '../../src/eval/golden';
import { FuzzyLocator } from '../../src/eval/locate';

// Lines 1381–1382 are real OpenITI units (0292Yacqubi.Tarikh.JK001493) with the real OCR_GS gold line that spans
// them; lines 1380 and 1383 are written for the test in the same style.
const DOC = {
  uri: '0292Yacqubi.Tarikh.JK001493-ara1',
  lines: [
    { line: 1380, text: 'ويقول لهم إن الله قد أرسلني إليكم بالهدى والنور والحق المبين' },
    { line: 1381, text: 'لكم أما الباب فإنه معرض والطريق بين وهو يبلغ الناس التلف وما اصغر الباب' },
    { line: 1382, text: 'وأضيق الطريق التي تبلغ الناس النجاة' },
    { line: 1383, text: 'ثم قال لهم طوبى للمساكين فإن لهم ملكوت السماء' },
  ],
};

describe('eval/FuzzyLocator (gold line → source units)', () => {
  const loc = new FuzzyLocator([DOC]);

  it('a gold line spanning two units: both found, quality 1 after normalisation', () => {
    const r = loc.locate(' الناس التلف ، وما اصغر الباب ، وأضيق الطريق التي تبلغ الناس النجاة .')!;
    expect(r.uri).to.equal(DOC.uri);
    expect(r.quality).to.equal(1);
    expect(r.units.map((u) => u.line)).to.deep.equal([1381, 1382]);
    expect(r.units[1].overlap).to.equal(r.units[1].unitLength); // 1382 lies wholly inside the gold line
    expect(r.units.every((u) => isRelevantOverlap(u.overlap, r.goldLength, u.unitLength))).to.equal(true);
  });

  it('another edition’s spelling still matches with high quality; unrelated text does not', () => {
    const r = loc.locate('ثم قال لهم : طوبى للمساكين ، فإن لهم ملكوت السماء')!;
    expect(r.units.map((u) => u.line)).to.deep.equal([1383]);
    expect(r.quality).to.equal(1);
    const edited = loc.locate('ثم قال لهم طوبا للمساكين فان لهم ملكوت السموات')!;
    expect(edited.quality).to.be.within(0.85, 0.99);
    const none = loc.locate('وكان الخليفة يجلس للناس يوم الجمعة في المسجد الجامع');
    expect(none === null || none.quality < 0.6).to.equal(true);
    expect(loc.locate('ab')).to.equal(null);
  });

  it('relevance needs 30 % of the gold line or half of the unit, and 8 letters', () => {
    expect(isRelevantOverlap(30, 100, 200)).to.equal(true);
    expect(isRelevantOverlap(20, 100, 40)).to.equal(true);
    expect(isRelevantOverlap(20, 100, 200)).to.equal(false);
    expect(isRelevantOverlap(6, 10, 10)).to.equal(false);
  });
});
