import { expect } from 'chai';
import { alignSequences } from '../../src/text/alignment';
import { levenshtein } from '../../src/text/levenshtein';
import { matchCounts } from '../../src/text/match-counts';
import { mer, merCounts } from '../../src/text/mer';
import { toCodePoints } from '../../src/text/tokens';

const counts = (a: string, b: string) => matchCounts(toCodePoints(a), toCodePoints(b));

describe('text/match-counts and mer', () => {
  it("takes jiwer's tie order: a swap is a deletion, a hit and an insertion, not two substitutions", () => {
    // jiwer.process_characters("ab", "ba") → hits 1, deletions 1, insertions 1 (RapidFuzz editops' backtrace).
    expect(counts('ab', 'ba')).to.deep.equal({ hits: 1, substitutions: 0, deletions: 1, insertions: 1 });
    expect(mer(counts('ab', 'ba'))).to.be.closeTo(2 / 3, 1e-12);
    // The project's CER alignment prefers the diagonal: same distance, other H — which is why MER has its own.
    expect(alignSequences(toCodePoints('ab'), toCodePoints('ba')).substitutions).to.equal(2);
    // jiwer: kitten → sitting = hits 4, substitutions 2, insertions 1; abcdef → azced = 3, 2, 1 deletion.
    expect(counts('kitten', 'sitting')).to.deep.equal({ hits: 4, substitutions: 2, deletions: 0, insertions: 1 });
    expect(counts('abcdef', 'azced')).to.deep.equal({ hits: 3, substitutions: 2, deletions: 1, insertions: 0 });
  });

  it('S + D + I is the Levenshtein distance, and the band grows until it holds it', () => {
    let seed = 3;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let k = 0; k < 300; k++) {
      const a = Int32Array.from({ length: Math.floor(rnd() * 200) }, () => Math.floor(rnd() * 5));
      const b = Int32Array.from({ length: Math.floor(rnd() * 200) }, () => Math.floor(rnd() * 5));
      const c = matchCounts(a, b);
      expect(c.substitutions + c.deletions + c.insertions).to.equal(levenshtein(a, b));
      expect(c.hits + c.substitutions + c.deletions).to.equal(a.length);
      expect(c.hits + c.substitutions + c.insertions).to.equal(b.length);
    }
  });

  it('MER is bounded by 1 where CER is not, and is 0 with nothing to align', () => {
    const c = merCounts('abc', 'abc and a long hallucinated tail').char;
    expect(mer(c)).to.be.below(1);
    expect((c.substitutions + c.deletions + c.insertions) / 3).to.be.above(1);
    expect(mer(merCounts('', '').char)).to.equal(0);
    expect(merCounts('the cat sat', 'the hat sat').word).to.deep.equal({ hits: 2, substitutions: 1, deletions: 0, insertions: 0 });
  });
});
