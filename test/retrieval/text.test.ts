import { expect } from 'chai';
import {
  charNgrams,
  codePoints,
  dedupDigest,
  matchKey,
  ngramContainment,
  substringEditDistance,
  substringSimilarity,
} from '../../src/retrieval/text';

describe('retrieval/text', () => {
  it('matchKey removes diacritics, punctuation, brackets and footnote numbers and unifies letter variants', () => {
    // Real OCR_GS gold line (Adab al-Katib) and its OpenITI source spelling.
    const gold = '« زوان وزؤان »(1) و « زوان » ، وهو « جمام المكوك »';
    expect(matchKey(gold)).to.equal('زوان وزوان و زوان وهو جمام المكوك');
    expect(matchKey('وَقَالُوا: جَمِيلٌ وَسَمِجٌ.')).to.equal('وقالوا جميل وسمج');
    expect(matchKey('أإآٱا ى ة ئ')).to.equal('ااااا ي ه ي');
    expect(matchKey('ABC 123 ...')).to.equal('abc');
  });

  it('dedupDigest is equal for vocalised / punctuated copies and differs for other text', () => {
    expect(dedupDigest('قالَ الشيخُ: إنَّ الوفاءَ نورٌ')).to.equal(dedupDigest('قال الشيخ إن الوفاء نور'));
    expect(dedupDigest('قال الشيخ إن الوفاء نور')).to.not.equal(dedupDigest('قال الشيخ إن الكرم نور'));
    expect(dedupDigest('x')).to.match(/^[0-9a-f]{64}$/);
    // Text in other scripts is compared too (generic corpora), and numbers keep items apart.
    expect(dedupDigest('Chapter One: The Road.')).to.equal(dedupDigest('chapter one — the road'));
    expect(dedupDigest('Item 1')).to.not.equal(dedupDigest('Item 2'));
  });

  it('charNgrams pads words so word boundaries are grams of their own', () => {
    expect(charNgrams('ab cde', 3)).to.deep.equal([' ab', 'ab ', ' cd', 'cde', 'de ']);
    expect(charNgrams('a', 3)).to.deep.equal([' a ']);
    expect(() => charNgrams('a', 0)).to.throw(/positive integer/);
  });

  it('ngramContainment is 1 for a fragment of the candidate and falls with OCR errors', () => {
    const src = 'وأضيق الطريق التي تبلغ الناس النجاة';
    expect(ngramContainment(matchKey('الطريق التي تبلغ'), matchKey(src))).to.equal(1);
    const noisy = ngramContainment(matchKey('وأفيق الطريق الي تيلق التاس انجاة'), matchKey(src));
    expect(noisy).to.be.within(0.2, 0.9);
    expect(ngramContainment('', matchKey(src))).to.equal(0);
  });

  it('substringEditDistance fits the whole pattern into the best substring and reports its bounds', () => {
    const t = codePoints('xxhelloyy');
    expect(substringEditDistance(codePoints('hello'), t)).to.deep.equal({ distance: 0, start: 2, end: 7 });
    const one = substringEditDistance(codePoints('hallo'), t);
    expect(one.distance).to.equal(1);
    expect([one.start, one.end]).to.deep.equal([2, 7]);
    // A pattern longer than the text costs at least the length difference.
    expect(substringEditDistance(codePoints('abcdef'), codePoints('abc')).distance).to.equal(3);
    expect(substringEditDistance(codePoints(''), t).distance).to.equal(0);
    expect(substringEditDistance(codePoints('ab'), codePoints('')).distance).to.equal(2);
  });

  it('substringEditDistance agrees with brute force over all substrings', () => {
    const lev = (a: string, b: string) => {
      const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
      for (let j = 1; j <= b.length; j++) d[0][j] = j;
      for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++)
          d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      return d[a.length][b.length];
    };
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 4;
    for (let trial = 0; trial < 60; trial++) {
      const p = Array.from({ length: 1 + (trial % 5) }, () => 'abcd'[rnd()]).join('');
      const t = Array.from({ length: 3 + (trial % 7) }, () => 'abcd'[rnd()]).join('');
      let best = Infinity;
      for (let s = 0; s <= t.length; s++) for (let e = s; e <= t.length; e++) best = Math.min(best, lev(p, t.slice(s, e)));
      const got = substringEditDistance(codePoints(p), codePoints(t));
      expect(got.distance, `${p} in ${t}`).to.equal(best);
      expect(lev(p, t.slice(got.start, got.end)), `span of ${p} in ${t}`).to.equal(best);
    }
  });

  it('substringSimilarity ranks an OCR line against its source above an unrelated sentence', () => {
    const ocr = 'وأفيق الطريق الي تيلق التاس انجاة';
    const source = 'وأضيق الطريق التي تبلغ الناس النجاة';
    const other = 'قال الشيخ أبو محمد إن الصبر حصن منيع لأهل المروءة';
    expect(substringSimilarity(matchKey(ocr), matchKey(source))).to.be.greaterThan(
      substringSimilarity(matchKey(ocr), matchKey(other)) + 0.2,
    );
  });
});
