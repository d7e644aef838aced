import { expect } from 'chai';
import { LexicalIndex } from '../../src/retrieval/lexical-index';
import { charNgrams, matchKey } from '../../src/retrieval/text';

// Lines of the synthetic OpenITI fixture corpus (test/fixtures/openiti) plus a real OpenITI line.
const DOCS = [
  'قال الشيخ أبو محمد إن الوفاء نور يهتدى به في الظلمات',
  'وذكر الراوي عن أبيه إن الكرم مفتاح كل خير في الدنيا',
  'وقال الأصمعي إن الوفاء زينة الرجال في المجالس',
  'وقال الأصمعي إن الصدق خير ما ورثه الآباء للأبناء',
  'قال الشيخ أبو محمد إن الصبر حصن منيع لأهل المروءة',
  'لكم أما الباب فإنه معرض والطريق بين وهو يبلغ الناس التلف وما اصغر الباب',
  'وأضيق الطريق التي تبلغ الناس النجاة',
];

/** Plain BM25 (same idf and normalisation) computed term by term, as the reference. */
function referenceBm25(docs: string[], query: string, n = 3, k1 = 1.2, b = 0.75): number[] {
  const grams = docs.map((d) => charNgrams(matchKey(d), n));
  const avg = grams.reduce((a, g) => a + g.length, 0) / docs.length;
  const q = new Map<string, number>();
  for (const g of charNgrams(matchKey(query), n)) q.set(g, (q.get(g) ?? 0) + 1);
  return grams.map((dg) => {
    let s = 0;
    for (const [t, qtf] of q) {
      const tf = dg.filter((g) => g === t).length;
      if (tf === 0) continue;
      const df = grams.filter((g) => g.includes(t)).length;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      s += (idf * qtf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dg.length) / avg));
    }
    return s;
  });
}

describe('retrieval/LexicalIndex (BM25 over character n-grams)', () => {
  it('scores exactly like a term-by-term BM25 reference', () => {
    const ix = LexicalIndex.build(DOCS, { maxDf: 1 });
    for (const q of ['وأفيق الطريق الي تيلق التاس انجاة', 'الوفاء زينة', 'قال الشيخ']) {
      const ref = referenceBm25(DOCS, q);
      const hits = ix.search(q, DOCS.length);
      for (const h of hits) expect(h.score, `${q} doc ${h.idx}`).to.be.closeTo(ref[h.idx], 1e-4);
      // Every document with a positive reference score is returned, in descending order.
      expect(hits.length).to.equal(ref.filter((s) => s > 0).length);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).to.be.at.least(hits[i].score);
    }
  });

  it('finds the source of a noisy OCR line (real OCR_GS / OpenITI pair) first', () => {
    const ix = LexicalIndex.build(DOCS);
    // OCR of "وأضيق الطريق التي تبلغ الناس النجاة": almost every word has an error.
    expect(ix.search('وأفيق الطريق الي تيلق التاس انجاة', 3)[0].idx).to.equal(6);
    expect(ix.search('الناس التلف، وماأصعر الباب', 1)[0].idx).to.equal(5);
  });

  it('honours k, breaks ties by idx and returns [] for queries without indexed grams', () => {
    const ix = LexicalIndex.build(['نص واحد هنا', 'نص واحد هنا', 'شيء آخر تماما']);
    const hits = ix.search('نص واحد', 2);
    expect(hits.map((h) => h.idx)).to.deep.equal([0, 1]);
    expect(hits[0].score).to.equal(hits[1].score);
    expect(ix.search('نص واحد', 1).map((h) => h.idx)).to.deep.equal([0]);
    expect(ix.search('xyz 123', 3)).to.deep.equal([]);
    expect(() => ix.search('نص', 0)).to.throw(/positive integer/);
    expect(() => LexicalIndex.build([], { ngram: 0 })).to.throw(/ngram/);
  });

  it('max_df skips grams found in too many documents (and only those)', () => {
    const docs = [...DOCS, ...Array.from({ length: 1200 }, (_, i) => `وقال ${'بسم'.repeat(1 + (i % 3))} ${i}`)];
    const exact = LexicalIndex.build(docs, { maxDf: 1 });
    const fast = LexicalIndex.build(docs, { maxDf: 0.5 });
    // Every gram of "وقال" is in > 1,000 documents and > half of them: skipped by `fast`.
    expect(exact.search('وقال', 3).length).to.be.greaterThan(0);
    expect(fast.search('وقال', 3)).to.deep.equal([]);
    // Rare grams score the same in both.
    const q = 'الطريق التي تبلغ';
    expect(fast.search(q, 1)[0].idx).to.equal(exact.search(q, 1)[0].idx);
    expect(() => LexicalIndex.build(DOCS, { maxDf: 0 })).to.throw(/maxDf/);
  });

  it('repeated searches give the same result (the accumulator is reset)', () => {
    const ix = LexicalIndex.build(DOCS);
    const a = ix.search('الطريق الناس', 5);
    ix.search('قال الشيخ أبو محمد', 5);
    expect(ix.search('الطريق الناس', 5)).to.deep.equal(a);
  });
});
