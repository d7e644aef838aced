import { BUILTIN_PROFILES } from '../../src/text/profiles';
import { expect } from 'chai';
import {
  alignSequences,
  cer,
  ErrorRateAccumulator,
  levenshtein,
  MAX_ALIGNMENT_CELLS,
  prepareText,
  scoreDistances,
  scorePair,
  scorePrepared,
  SPACE,
  substringEditDistance,
  wer,
} from '../../src/text/distance';
import { toCodePoints } from '../../src/text/tokens';

const cp = (s: string) => toCodePoints(s);

describe('text/distance', () => {
  describe('alignSequences', () => {
    it('computes the classic kitten → sitting distance with its edit breakdown', () => {
      const a = alignSequences(cp('kitten'), cp('sitting'), true);
      expect(a.distance).to.equal(3);
      expect([a.substitutions, a.deletions, a.insertions, a.hits]).to.deep.equal([2, 0, 1, 4]);
      expect(a.ops).to.deep.equal([
        { type: 'S', ref: 0, hyp: 0 },
        { type: 'S', ref: 4, hyp: 4 },
        { type: 'I', ref: 6, hyp: 6 },
      ]);
    });

    it('handles empty sides as pure insertions or deletions', () => {
      expect(alignSequences(cp(''), cp('abc'), true)).to.deep.include({ distance: 3, insertions: 3, deletions: 0 });
      expect(alignSequences(cp('ab'), cp(''), true)).to.deep.include({ distance: 2, deletions: 2, insertions: 0 });
      expect(alignSequences(cp(''), cp('')).distance).to.equal(0);
    });

    it('returns only the counts unless ops are requested', () => {
      expect(alignSequences(cp('abc'), cp('abd')).ops).to.equal(undefined);
    });

    it('matches a common prefix and suffix outright and anchors edits between them', () => {
      const a = alignSequences(cp('xxabcyy'), cp('xxadcyy'), { ops: true });
      expect(a).to.deep.equal({
        distance: 1,
        substitutions: 1,
        deletions: 0,
        insertions: 0,
        hits: 6,
        ops: [{ type: 'S', ref: 3, hyp: 3 }],
      });
      const b = alignSequences(cp('xxyy'), cp('xxabyy'), true);
      expect(b.ops).to.deep.equal([
        { type: 'I', ref: 2, hyp: 2 },
        { type: 'I', ref: 2, hyp: 3 },
      ]);
      expect(b.hits).to.equal(4);
    });

    it('refuses alignments beyond MAX_ALIGNMENT_CELLS with a RangeError', () => {
      const n = Math.ceil(Math.sqrt(MAX_ALIGNMENT_CELLS)) + 1;
      expect(() => alignSequences(new Int32Array(n).fill(1), new Int32Array(n).fill(2))).to.throw(RangeError, /alignment too large/);
    });

    it('among equal-cost alignments prefers an inserted space over a letter→space substitution', () => {
      // "مدينة السلام" vs "مدينه  السلام": distance 2 either way; the natural reading is ة→ه + inserted space.
      const ref = cp('مدينة السلام');
      const hyp = cp('مدينه  السلام');
      const plain = alignSequences(ref, hyp, { ops: true });
      const sep = alignSequences(ref, hyp, { ops: true, separator: SPACE });
      expect(plain.distance).to.equal(2);
      expect(sep.distance).to.equal(2);
      expect(sep.ops!.map((o) => o.type)).to.deep.equal(['S', 'I']);
      expect(sep.ops![0]).to.deep.equal({ type: 'S', ref: 4, hyp: 4 });
    });

    it('agrees with a straightforward Levenshtein on random strings', () => {
      const lev = (a: string, b: string) => {
        const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
        for (let j = 1; j <= b.length; j++) d[0][j] = j;
        for (let i = 1; i <= a.length; i++)
          for (let j = 1; j <= b.length; j++)
            d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        return d[a.length][b.length];
      };
      let seed = 7;
      const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
      const word = () => Array.from({ length: Math.floor(rnd() * 12) }, () => 'اب ت'[Math.floor(rnd() * 4)]).join('');
      for (let k = 0; k < 300; k++) {
        const a = word();
        const b = word();
        const al = alignSequences(cp(a), cp(b), { ops: true, separator: SPACE });
        expect(al.distance, `${a} / ${b}`).to.equal(lev(a, b));
        expect(levenshtein(cp(a), cp(b)), `fast path ${a} / ${b}`).to.equal(al.distance);
        expect(al.substitutions + al.deletions + al.insertions).to.equal(al.distance);
        expect(al.hits + al.substitutions + al.deletions).to.equal(a.length);
        expect(al.ops!.length).to.equal(al.distance);
      }
    });
  });

  it('counts code points, not UTF-16 units', () => {
    expect(scorePair('a𝔸b', 'ab').charEdits).to.equal(1);
    expect(scorePair('a𝔸b', 'ab').refChars).to.equal(3);
  });

  describe('CER / WER', () => {
    it('scores a hand-computed Arabic pair', () => {
      // gold "قال الشيخ في البيت" (18 chars, 4 words); OCR drops a space and confuses ي→ب.
      const p = scorePair(' قال الشيخ في البيت ', 'قال الشبخ فيالبيت');
      expect(p.refChars).to.equal(18);
      expect(p.charEdits).to.equal(2);
      expect(p.refWords).to.equal(4);
      // words: الشيخ→الشبخ (S), في البيت → فيالبيت (S + D)
      expect(p.wordEdits).to.equal(3);
      expect(p.char).to.deep.include({ substitutions: 1, deletions: 1, insertions: 0 });
    });

    it('sums edits over lines (corpus rate) and also reports the per-line mean', () => {
      const refs = ['abcd', 'ab'];
      const hyps = ['abcd', 'xy'];
      expect(cer(refs, hyps)).to.equal(2 / 6);
      const acc = new ErrorRateAccumulator();
      refs.forEach((r, i) => acc.add(scorePair(r, hyps[i])));
      expect(acc.cer.rate).to.equal(2 / 6);
      expect(acc.cer.mean_per_line).to.equal((0 + 1) / 2);
      expect(acc.cer).to.deep.include({ edits: 2, ref_length: 6, substitutions: 2 });
    });

    it('gives the same distances on the fast path', () => {
      const p = scorePair(' قال الشيخ في البيت ', 'قال الشبخ فيالبيت');
      expect(scoreDistances(' قال الشيخ في البيت ', 'قال الشبخ فيالبيت')).to.deep.equal({
        charEdits: p.charEdits,
        refChars: p.refChars,
        wordEdits: p.wordEdits,
        refWords: p.refWords,
      });
    });

    it('computes WER over whitespace tokens', () => {
      expect(wer(['a b c d'], ['a x c'])).to.equal(2 / 4);
      expect(wer(['a b'], ['a  b '])).to.equal(0);
    });

    it('skips empty references in the per-line mean but counts their insertions', () => {
      const acc = new ErrorRateAccumulator();
      acc.add(scorePair('', 'xyz'));
      acc.add(scorePair('ab', 'ab'));
      expect(acc.emptyReference).to.equal(1);
      expect(acc.cer.rate).to.equal(3 / 2);
      expect(acc.cer.mean_per_line).to.equal(0);
    });

    it('is zero for identical texts and the reference length for an empty output', () => {
      expect(cer(['مدينة السلام'], ['مدينة السلام'])).to.equal(0);
      expect(cer(['مدينة'], [''])).to.equal(1);
      expect(wer(['مدينة السلام'], [''])).to.equal(1);
    });

    it('returns the character edits of the scoring alignment on request', () => {
      const s = scorePrepared('مدينة السلام', 'مدينه  السلام', true);
      expect(s.score.charEdits).to.equal(2);
      expect(s.ops!.map((o) => o.type)).to.deep.equal(['S', 'I']);
      expect(scorePrepared('ab', 'ab').ops).to.equal(undefined);
    });

    it('rejects lists of different lengths', () => {
      expect(() => cer(['a'], [])).to.throw(/1 references but 0 hypotheses/);
    });
  });

  describe('normalised scoring (secondary metrics)', () => {
    it('makes orthographic variants score as equal', () => {
      expect(cer(['مدينة على'], ['مدينه علي'])).to.be.greaterThan(0);
      expect(cer(['مدينة على'], ['مدينه علي'], { profile: BUILTIN_PROFILES.no_diacritics })).to.equal(0);
      expect(prepareText(' أحمد  ', { profile: BUILTIN_PROFILES.no_diacritics })).to.equal('احمد');
      expect(prepareText(' a  b ', { collapseWhitespace: false })).to.equal('a  b');
    });
  });

  describe('substringEditDistance', () => {
    it('fits the whole pattern into the best substring of the text', () => {
      expect(substringEditDistance(cp('hello'), cp('xxhelloyy'))).to.deep.equal({ distance: 0, start: 2, end: 7 });
      expect(substringEditDistance(cp('ab'), cp(''))).to.deep.equal({ distance: 2, start: 0, end: 0 });
    });
  });
});
