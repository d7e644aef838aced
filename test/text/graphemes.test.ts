import { expect } from 'chai';
import { displayUnits, unitBoundaries } from '../../src/text/graphemes';

const FATHA = '\u064E',
  DAMMA = '\u064F',
  KASRA = '\u0650',
  SHADDA = '\u0651',
  SUKUN = '\u0652',
  TANWIN_DAMM = '\u064C';

describe('text/graphemes: display units (grapheme clusters, lam-alef)', () => {
  it('keeps a letter with its harakat together', () => {
    expect(displayUnits(`ب${KASRA}س${SUKUN}م${KASRA}`)).to.deep.equal([`ب${KASRA}`, `س${SUKUN}`, `م${KASRA}`]);
  });

  it('keeps stacked diacritics (shadda + haraka, haraka + tanwin) on their letter', () => {
    const word = `م${DAMMA}ح${FATHA}م${SHADDA}${FATHA}د${TANWIN_DAMM}`;
    expect(displayUnits(word)).to.deep.equal([`م${DAMMA}`, `ح${FATHA}`, `م${SHADDA}${FATHA}`, `د${TANWIN_DAMM}`]);
    expect(displayUnits(word).join('')).to.equal(word);
  });

  it('makes lam + alef (bare, with hamza, madda, and with a haraka on the lam) one unit', () => {
    expect(displayUnits('لا')).to.deep.equal(['لا']);
    expect(displayUnits('الإسلام')).to.deep.equal(['ا', 'لإ', 'س', 'لا', 'م']);
    expect(displayUnits(`ل${FATHA}آ`)).to.deep.equal([`ل${FATHA}آ`]);
    expect(displayUnits('لأن')).to.deep.equal(['لأ', 'ن']);
  });

  it('joins only one alef to a lam, and no other letter', () => {
    expect(displayUnits('لاا')).to.deep.equal(['لا', 'ا']);
    expect(displayUnits('لب')).to.deep.equal(['ل', 'ب']);
    expect(displayUnits('ال')).to.deep.equal(['ا', 'ل']);
  });

  it('gives unit starts in code points, end included', () => {
    expect(Array.from(unitBoundaries(`ب${SHADDA}${FATHA}لا`))).to.deep.equal([1, 0, 0, 1, 0, 1]);
    expect(Array.from(unitBoundaries(''))).to.deep.equal([1]);
  });
});
