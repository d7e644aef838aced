import { expect } from 'chai';
import { globToRegExp } from '../../src/util/glob';
import { globToRegExp as fromMetadata } from '../../src/openiti/metadata';
import { globToRegExp as fromFormat } from '../../analysis/inputs/leakage';

describe('util/glob', () => {
  it('matches whole version URIs: `*` any run, `?` one character, the rest literal', () => {
    const re = globToRegExp('0292Yacqubi.Tarikh*');
    expect(re.test('0292Yacqubi.Tarikh.Shamela0001234-ara1')).to.equal(true);
    expect(re.test('0292Yacqubi.Tarikh')).to.equal(true);
    expect(re.test('0292YacqubiXTarikh.Shamela0001234-ara1')).to.equal(false);
    expect(re.test('x0292Yacqubi.Tarikh')).to.equal(false);
    expect(globToRegExp('a?c').test('abc')).to.equal(true);
    expect(globToRegExp('a?c').test('ac')).to.equal(false);
    expect(globToRegExp('a?c').test('abbc')).to.equal(false);
  });

  it('treats regex metacharacters literally and is case-sensitive', () => {
    for (const s of ['a.b', 'a+b', 'a^b$', 'a|b', '(a)[b]{c}', 'a\\b']) expect(globToRegExp(s).test(s), s).to.equal(true);
    expect(globToRegExp('a.b+c?').test('a.b+cX')).to.equal(true);
    expect(globToRegExp('a.b+c?').test('aXb+cX')).to.equal(false);
    expect(globToRegExp('a+b').test('aab')).to.equal(false);
    expect(globToRegExp('Abc').test('abc')).to.equal(false);
  });

  it('counts `?` as one code point', () => {
    expect(globToRegExp('a?b').test('a\u{1D538}b')).to.equal(true);
  });

  it('is the one implementation behind the corpus exclusion and the analysis', () => {
    expect(fromMetadata).to.equal(globToRegExp);
    expect(fromFormat).to.equal(globToRegExp);
  });
});
