import { expect } from 'chai';
import { canonical } from '../../src/text/canonical';
import { toCodePoints, toWords, wordIds } from '../../src/text/tokens';

describe('text/tokens', () => {
  describe('scoring form and tokens', () => {
    it('trims and collapses whitespace runs (including NBSP and newlines) by default', () => {
      expect(canonical('  قال \u00a0 الشيخ\n')).to.equal('قال الشيخ');
      expect(canonical(' a  b ', false)).to.equal('a  b');
    });

    it('splits words on any whitespace run and yields no token for an empty text', () => {
      expect(toWords('قال الشيخ')).to.deep.equal(['قال', 'الشيخ']);
      expect(toWords('a\u00a0b  c')).to.deep.equal(['a', 'b', 'c']);
      expect(toWords('')).to.deep.equal([]);
    });

    it('counts code points, not UTF-16 units', () => {
      expect(Array.from(toCodePoints('a𝔸b'))).to.deep.equal([0x61, 0x1d538, 0x62]);
      expect(toCodePoints('abc')).to.have.length(3);
    });

    it('maps two token lists to shared integer ids', () => {
      const [r, h] = wordIds(['قال', 'الشيخ', 'قال'], ['الشيخ', 'في']);
      expect(Array.from(r)).to.deep.equal([0, 1, 0]);
      expect(Array.from(h)).to.deep.equal([1, 2]);
    });
  });
});
