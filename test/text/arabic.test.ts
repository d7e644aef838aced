import { expect } from 'chai';
import {
  ARABIC_DIACRITICS,
  errorClassLabel,
  errorClassOf,
  arabicShare,
  countArabicLetters,
  countLetters,
  DEFAULT_ARABIC_NORMALIZATION,
  HARAKAT_AND_TATWEEL,
  isArabicDiacritic,
  isMostlyArabic,
  normalizeArabic,
  normalizeOrthography,
  removeDiacritics,
  removeTatweel,
  stripHarakatAndTatweel,
  TATWEEL,
  unifyAlef,
  unifyHamzaSeats,
  unifyTaaMarbuta,
  unifyYaa,
} from '../../src/text/arabic';

/** Every BMP character except the surrogate halves, joined (one string to run the removals on). */
const BMP = Array.from({ length: 0x10000 }, (_, c) => c).filter((c) => c < 0xd800 || c > 0xdfff);
const inRanges = (ranges: typeof ARABIC_DIACRITICS, c: number) => ranges.some(([lo, hi]) => c >= lo && c <= hi);

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
    expect(isMostlyArabic('قال أبو عثمان')).to.equal(true);
    expect(isMostlyArabic('Hello world')).to.equal(false);
    expect(isMostlyArabic('123 ... ١٢٣')).to.equal(false); // no letters at all
    expect(isMostlyArabic('كتاب books')).to.equal(false); // 4 of 9 letters < default 0.5
    expect(isMostlyArabic('كتاب book', 0.5)).to.equal(true);
    expect(isMostlyArabic('كتاب book', 0.6)).to.equal(false);
    expect(arabicShare('كتاب book')).to.equal(0.5);
    expect(arabicShare('')).to.equal(0);
  });

  it('rejects an out-of-range minShare', () => {
    expect(() => isMostlyArabic('كتب', 1.5)).to.throw(RangeError, /minShare/);
  });

  describe('diacritic sets', () => {
    it('keeps the full set of the secondary metrics (Quranic marks included, no tatweel)', () => {
      // The set analysis/score/text-metrics.ts removed before it moved here, written out.
      const old = /[\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E8\u06EA-\u06ED]/gu;
      const all = String.fromCharCode(...BMP);
      expect(removeDiacritics(all)).to.equal(all.replace(old, ''));
      for (const c of BMP) expect(isArabicDiacritic(c), c.toString(16)).to.equal(inRanges(ARABIC_DIACRITICS, c));
      expect(isArabicDiacritic(0x0640)).to.equal(false);
      expect(isArabicDiacritic(0x06dd)).to.equal(false);
      expect(removeDiacritics('بِسْمِ ۖ')).to.equal('بسم ');
    });

    it('keeps the narrower duplicate-key set of the corpus build (harakat, superscript alef, tatweel)', () => {
      // The regex the corpus builder's dedupKey used before it moved here.
      const old = /[\u064b-\u065f\u0670\u0640]/g;
      const all = String.fromCharCode(...BMP) + '\u{1F600}a\u0640';
      expect(stripHarakatAndTatweel(all)).to.equal(all.replace(old, ''));
      expect(stripHarakatAndTatweel('كَـتَبَ ۖ ؐ')).to.equal('كتب ۖ ؐ'); // Quranic marks stay in the key
      expect(inRanges(HARAKAT_AND_TATWEEL, 0x0640)).to.equal(true);
    });

    it('removes the tatweel alone', () => {
      expect(TATWEEL).to.equal('\u0640');
      expect(removeTatweel('كتـــابَ')).to.equal('كتابَ');
    });
  });

  describe('normalisation profiles', () => {
    it('removes diacritics and tatweel and unifies alef, yaa and taa marbuta', () => {
      expect(normalizeArabic('كَتَبَ')).to.equal('كتب');
      expect(normalizeArabic('كتـــاب')).to.equal('كتاب');
      expect(normalizeArabic('أإآٱ')).to.equal('اااا');
      expect(normalizeArabic('على')).to.equal('علي');
      expect(normalizeArabic('مدينة')).to.equal('مدينه');
    });

    it('applies only the enabled rules', () => {
      const off = { remove_diacritics: false, remove_tatweel: false, unify_alef: false, unify_yaa: false, unify_taa_marbuta: false };
      expect(normalizeArabic('أَعلى مدينةـ', off)).to.equal('أَعلى مدينةـ');
      expect(normalizeArabic('أَعلى مدينة', { ...off, unify_alef: true })).to.equal('اَعلى مدينة');
      expect(normalizeArabic('على', { unify_yaa: false })).to.equal('على');
      expect(DEFAULT_ARABIC_NORMALIZATION.unify_taa_marbuta).to.equal(true);
    });

    it('ends with the scoring form; normalizeOrthography leaves whitespace alone', () => {
      expect(normalizeArabic('  أَحمد \u00a0 على  ')).to.equal('احمد علي');
      expect(normalizeArabic(' a  b ', {}, false)).to.equal('a  b');
      expect(normalizeOrthography('  أَحمد  ')).to.equal('  احمد  ');
    });

    it('builds the profile from the single rules, in order', () => {
      const s = 'أَعلى مدينةـ ٱلْكِتاب';
      expect(normalizeOrthography(s)).to.equal(unifyTaaMarbuta(unifyYaa(unifyAlef(removeTatweel(removeDiacritics(s))))));
      expect(unifyHamzaSeats('مؤمن سئل')).to.equal('مومن سيل');
    });
  });
});

describe('text/arabic: error classes of character edits', () => {
  it('puts substitutions within a dot-only group in that group, and across groups in other', () => {
    expect(errorClassOf('ي', 'ب')).to.equal('dots_ba');
    expect(errorClassOf('ن', 'ث')).to.equal('dots_ba');
    expect(errorClassOf('خ', 'ح')).to.equal('dots_jim');
    expect(errorClassOf('ف', 'ق')).to.equal('dots_fa');
    expect(errorClassOf('ب', 'ج')).to.equal('other');
    expect(errorClassOf('ب', '')).to.equal('other');
    expect(errorClassLabel('dots_ba')).to.equal('dots ب ت ث ن ي');
  });

  it('classifies diacritics, hamza/alef forms and whitespace first', () => {
    expect(errorClassOf('\u064E', '')).to.equal('diacritics');
    expect(errorClassOf('ـ', '')).to.equal('diacritics');
    expect(errorClassOf('أ', 'ا')).to.equal('hamza_alef');
    expect(errorClassOf('ئ', 'ي')).to.equal('hamza_alef');
    expect(errorClassOf('', 'ء')).to.equal('hamza_alef');
    expect(errorClassOf('ا', 'ي')).to.equal('other');
    expect(errorClassOf(' ', '')).to.equal('whitespace');
    expect(errorClassOf('ب', ' ')).to.equal('whitespace');
  });
});
