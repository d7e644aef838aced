import { expect } from 'chai';
import { arabicShare, countArabicLetters, countLetters, isArabicText } from '../../src/text/arabic';

describe('text/arabic', () => {
  it('counts Arabic letters but not diacritics, tatweel, digits or punctuation', () => {
    // كَتَبَ = 3 letters + 3 fathas; ـ tatweel; ١٢ digits; ، ؟ punctuation
    expect(countArabicLetters('كَتَبَ')).to.equal(3);
    expect(countArabicLetters('كـــتب')).to.equal(3);
    expect(countArabicLetters('١٢، ؟')).to.equal(0);
    expect(countArabicLetters('ٱلله پ')).to.equal(5); // extended letters (wasla alif, peh) count
    expect(countLetters('abc كتب 123')).to.equal(6);
  });

  it('decides by the share of Arabic among letters', () => {
    expect(isArabicText('قال أبو عثمان')).to.equal(true);
    expect(isArabicText('Hello world')).to.equal(false);
    expect(isArabicText('123 ... ١٢٣')).to.equal(false); // no letters at all
    expect(isArabicText('كتاب books')).to.equal(false); // 4 of 9 letters < default 0.5
    expect(isArabicText('كتاب book', 0.5)).to.equal(true);
    expect(isArabicText('كتاب book', 0.6)).to.equal(false);
    expect(arabicShare('كتاب book')).to.equal(0.5);
    expect(arabicShare('')).to.equal(0);
  });

  it('rejects an out-of-range minShare', () => {
    expect(() => isArabicText('كتب', 1.5)).to.throw(RangeError, /minShare/);
  });
});
