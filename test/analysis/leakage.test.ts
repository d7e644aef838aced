import { expect } from 'chai';
import { sourceMatcher } from '../../analysis/format';
import { sourceExcluded } from '../../analysis/leakage';
import { makeExcluder } from '../../src/openiti/metadata';

/**
 * The report's leakage line must say what the corpus build did: a source book whose versions the build's
 * `exclude` patterns held out is "excluded", and one they let through is not. Each row is an exclude
 * pattern × an exact version URI (the dataset's `source_pattern` naming that version).
 */
const URIS = [
  '0292Yacqubi.Tarikh.Shamela0001234-ara1',
  '0292Yacqubi.Tarikh.Shamela0001235-ara1', // another version of the same work
  '0292Yacqubi.Tarikh.Shamela0001234-ara2',
  '0292Yacqubi.TarikhX.Shamela0009999-ara1', // another work whose name starts with the same letters
  '0292Yacqubi.Buldan.Shamela0000001-ara1', // another work of the author
  '0292YacqubiXTarikh.Shamela0001234-ara1', // `.` must be a literal dot
  '1292Yacqubi.Tarikh.Shamela0001234-ara1',
  '0276IbnQutaybaDinawari.AdabKatib.Shamela0005678-ara1',
  '0276IbnQutaybaDinawari.AdabKatibX.Shamela0005679-ara1',
  '0276IbnQutaybaDinawari.AdabKatib.Shamela0005678-ara1.mARkdown',
];

/** Pattern → the URIs (indices into URIS) it must hold out. */
const EXPECTED: Array<[string, number[]]> = [
  ['0292Yacqubi.Tarikh.Shamela0001234-ara1', [0]], // exact version URI: that version only
  ['0292Yacqubi.Tarikh*', [0, 1, 2, 3]], // a work-level glob also takes works that merely start the same
  ['0292Yacqubi.Tarikh.*', [0, 1, 2]], // ... so end the work name with a dot to take exactly one work
  ['0292Yacqubi*', [0, 1, 2, 3, 4, 5]],
  ['*Yacqubi.Tarikh.*', [0, 1, 2, 6]],
  ['Yacqubi.Tarikh*', []], // anchored at the start
  ['0292Yacqubi.Tarikh.Shamela0001234', []], // anchored at the end
  ['0292yacqubi.tarikh*', []], // case-sensitive
  ['0292Yacqubi.Tarikh.Shamela000123?-ara1', [0, 1]], // `?` = exactly one character
  ['0292Yacqubi.Tarikh.Shamela0001234-ara?', [0, 2]],
  ['?292Yacqubi.Tarikh.*', [0, 1, 2, 6]],
  ['0292Yacqubi?Tarikh*', [0, 1, 2, 3, 5]],
  ['0292Yacqubi.Tarikh+*', []], // regex metacharacters are literal
  ['0276IbnQutaybaDinawari.AdabKatib*', [7, 8, 9]],
  ['0276IbnQutaybaDinawari.AdabKatib.*-ara1', [7]],
  ['*', URIS.map((_, i) => i)],
];

describe('analysis/leakage', () => {
  for (const [pattern, held] of EXPECTED) {
    it(`corpus exclusion and the leakage line agree for exclude "${pattern}"`, () => {
      const excluder = makeExcluder([pattern]);
      URIS.forEach((uri, i) => {
        const built = excluder(uri) !== null;
        expect(built, `makeExcluder(${pattern})(${uri})`).to.equal(held.includes(i));
        expect(sourceExcluded([pattern], uri), `sourceExcluded([${pattern}], ${uri})`).to.equal(built);
        // The retrieval leakage count (`sourceMatcher`) reads the same pattern the same way on bare URIs.
        expect(sourceMatcher(pattern)(uri), `sourceMatcher(${pattern})(${uri})`).to.equal(built);
      });
    });
  }

  it('counts `?` as one code point on both sides', () => {
    const uri = 'a\u{1F600}b';
    expect(makeExcluder(['a?b'])(uri)).to.equal('a?b');
    expect(sourceExcluded(['a?b'], uri)).to.equal(true);
  });

  it('compares glob source patterns with exclude patterns both ways', () => {
    // An author-level exclude holds out a work-level source pattern ...
    expect(sourceExcluded(['0292Yacqubi*'], '0292Yacqubi.Tarikh*')).to.equal(true);
    // ... and an excluded version counts as holding out the work pattern it belongs to.
    expect(sourceExcluded(['0292Yacqubi.Tarikh.Shamela0001234-ara1'], '0292Yacqubi.Tarikh*')).to.equal(true);
    expect(sourceExcluded(['0292Yacqubi.Buldan*'], '0292Yacqubi.Tarikh*')).to.equal(false);
    expect(sourceExcluded(['0276IbnQutaybaDinawari.AdabKatib*', '0292Yacqubi.Tarikh*'], '0292Yacqubi.Tarikh*')).to.equal(true);
  });

  it('reports nothing excluded without patterns or without a source pattern', () => {
    expect(sourceExcluded([], '0292Yacqubi.Tarikh*')).to.equal(false);
    expect(sourceExcluded(['*'], undefined)).to.equal(false);
    expect(sourceExcluded(['*'], '')).to.equal(false);
  });
});
