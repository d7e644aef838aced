import { expect } from 'chai';
import { anchoredErrors, classifyEdit, ErrorChangeAccumulator, lineChanges } from '../../../analysis/score/error-changes';

describe('analysis/error-changes', () => {
  it('anchors OCR errors on gold positions', () => {
    const e = anchoredErrors('مدينة السلام', 'مدينه السلم');
    expect(e.map(({ type, ref, hyp, category }) => ({ type, ref, hyp, category }))).to.deep.equal([
      { type: 'substitution', ref: 'ة', hyp: 'ه', category: 'ta_marbuta' },
      { type: 'deletion', ref: 'ا', hyp: '', category: 'other_letter' },
    ]);
  });

  it('splits errors into fixed, introduced and unchanged', () => {
    // OCR: ة→ه and a missing ا; correction fixes ة but keeps the missing ا and prefixes a ي.
    const c = lineChanges('مدينة السلام', 'مدينه السلم', 'يمدينة السلم');
    expect(c.ocr_errors).to.equal(2);
    expect(c.corrected_errors).to.equal(2);
    expect(c.fixed.map((e) => [e.type, e.ref, e.hyp])).to.deep.equal([['substitution', 'ة', 'ه']]);
    expect(c.unchanged.map((e) => [e.type, e.ref])).to.deep.equal([['deletion', 'ا']]);
    expect(c.introduced.map((e) => [e.type, e.hyp])).to.deep.equal([['insertion', 'ي']]);
  });

  it('keeps ocr_errors = fixed + unchanged and corrected_errors = introduced + unchanged', () => {
    const cases: Array<[string, string, string]> = [
      ['قال الشيخ في البيت', 'قال الشبخ فيالبيت', 'قال الشيخ في البيت'],
      ['كتاب', 'كتاب', 'الكتاب'],
      ['abcabc', 'aXcabY', 'abcXbY'],
      ['', 'zz', ''],
      ['abc', '', 'abc'],
    ];
    for (const [g, o, h] of cases) {
      const c = lineChanges(g, o, h);
      expect(c.fixed.length + c.unchanged.length, g).to.equal(c.ocr_errors);
      expect(c.introduced.length + c.unchanged.length, g).to.equal(c.corrected_errors);
    }
  });

  it('treats identical OCR and correction as all unchanged, and correction = gold as all fixed', () => {
    const same = lineChanges('مدينة السلام', 'مدينه السلم', 'مدينه السلم');
    expect([same.fixed.length, same.introduced.length, same.unchanged.length]).to.deep.equal([0, 0, 2]);
    const gold = lineChanges('مدينة السلام', 'مدينه السلم', 'مدينة السلام');
    expect([gold.fixed.length, gold.introduced.length, gold.unchanged.length]).to.deep.equal([2, 0, 0]);
  });

  it('matches repeated insertions in a gap as a multiset', () => {
    // OCR inserted "xy" after "a"; the correction keeps only "y": x fixed, y unchanged.
    const c = lineChanges('ab', 'axyb', 'ayb');
    expect(c.fixed.map((e) => e.hyp)).to.deep.equal(['x']);
    expect(c.unchanged.map((e) => e.hyp)).to.deep.equal(['y']);
    expect(c.introduced).to.deep.equal([]);
  });

  it('classifies Arabic error types', () => {
    expect(classifyEdit('ة', 'ه')).to.equal('ta_marbuta');
    expect(classifyEdit('ى', 'ي')).to.equal('alef_maqsura_ya');
    expect(classifyEdit('أ', 'ا')).to.equal('hamza_alef');
    expect(classifyEdit('ئ', 'ي')).to.equal('hamza_alef');
    expect(classifyEdit('ب', 'ت')).to.equal('dots_same_skeleton');
    expect(classifyEdit('ف', 'ق')).to.equal('dots_same_skeleton');
    expect(classifyEdit('ب', 'م')).to.equal('other_letter');
    expect(classifyEdit(' ', '')).to.equal('whitespace');
    expect(classifyEdit('َ', '')).to.equal('diacritics_tatweel');
    expect(classifyEdit('ـ', '')).to.equal('diacritics_tatweel');
    expect(classifyEdit('،', '.')).to.equal('punctuation');
    expect(classifyEdit('١', '2')).to.equal('digits');
    expect(classifyEdit('', 'ء')).to.equal('hamza_alef');
  });

  it('accumulates totals, per-type and per-category counts, confusions and merges', () => {
    const acc = new ErrorChangeAccumulator();
    acc.add(lineChanges('مدينة', 'مدينه', 'مدينة'));
    acc.add(lineChanges('مدينة', 'مدينه', 'مدينه'));
    acc.add(lineChanges('بيت', 'بيت', 'بيث'));
    expect(acc.totals).to.deep.equal({ ocr_errors: 2, corrected_errors: 2, fixed: 1, introduced: 1, unchanged: 1 });
    expect(acc.byType.substitution).to.deep.equal({ ocr_errors: 2, corrected_errors: 2, fixed: 1, introduced: 1, unchanged: 1 });
    expect(acc.byCategory.ta_marbuta).to.deep.equal({ ocr_errors: 2, corrected_errors: 1, fixed: 1, introduced: 0, unchanged: 1 });
    expect(acc.byCategory.dots_same_skeleton.introduced).to.equal(1);
    expect(acc.topConfusions('fixed', 5)).to.deep.equal([{ type: 'substitution', ref: 'ة', hyp: 'ه', category: 'ta_marbuta', count: 1 }]);
    expect(acc.lines).to.equal(3);
    expect(acc.linesWithOcrErrors).to.equal(2);

    const all = new ErrorChangeAccumulator();
    all.merge(acc);
    all.merge(acc);
    expect(all.totals.fixed).to.equal(2);
    expect(all.topConfusions('unchanged', 5)[0].count).to.equal(2);
    expect(all.lines).to.equal(6);
  });

  it('orders confusions by count, then type and characters', () => {
    const acc = new ErrorChangeAccumulator();
    for (const [g, o] of [
      ['ب', 'ت'],
      ['ب', 'ت'],
      ['ج', 'ح'],
      ['ا', 'أ'],
      ['ب', 'ث'],
    ])
      acc.add(lineChanges(g, o, g));
    expect(acc.topConfusions('fixed', 3).map((c) => `${c.ref}${c.hyp}${c.count}`)).to.deep.equal(['بت2', 'اأ1', 'بث1']);
  });
});
