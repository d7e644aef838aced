import { expect } from 'chai';
import { globToRegExp, sourceMatcher } from '../../../analysis/inputs/leakage';

describe('analysis/inputs/leakage: source patterns', () => {
  it('matches version-URI globs against whole URIs and path segments', () => {
    expect(globToRegExp('0276IbnQutayba.Adab*').test('0276IbnQutayba.AdabX')).to.equal(true);
    expect(globToRegExp('a.b').test('axb')).to.equal(false);
    const m = sourceMatcher('0276IbnQutayba.Adab*');
    expect(m('0276IbnQutayba.Adab.JK000001-ara1')).to.equal(true);
    expect(m('data/0276IbnQutayba/0276IbnQutayba.Adab/0276IbnQutayba.Adab.JK000001-ara1.mARkdown')).to.equal(true);
    expect(m('0276IbnQutayba.Macarif.JK1-ara1')).to.equal(false);
  });
});
