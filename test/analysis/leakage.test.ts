import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sourceMatcher } from '../../analysis/format';
import { datasetExclusions, exclusionText, sourceExcluded } from '../../analysis/leakage';
import { corpusExclusions } from '../../analysis/stage';
import { parseConfig } from '../../src/config/load';
import { makeExcluder } from '../../src/openiti/metadata';
import { stagePaths } from '../../src/stages/build';

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

describe('analysis/leakage: what the corpus excluded, per dataset (Arms section, arms.json)', () => {
  const TARIKH = { dataset: 'tarikh', source_pattern: '0292Yacqubi.Tarikh.JK001493-ara1' };
  const ADAB = { dataset: 'adab', source_pattern: '0276IbnQutaybaDinawari.AdabKatib*' };
  const NONE = { dataset: 'none' };
  const HELD = [
    { dataset: 'tarikh', works: ['0292Yacqubi.Tarikh'], versions: ['0292Yacqubi.Tarikh.JK001493-ara1', '0292Yacqubi.Tarikh.Shamela01-ara1'] },
    { dataset: 'adab', works: [], versions: [] }, // its pattern named no work in the metadata
  ];

  it('by work: lists the works and versions held out; a pattern that names no work and a missing source exclude nothing', () => {
    const [tarikh, adab, none] = datasetExclusions([TARIKH, ADAB, NONE], [], HELD);
    expect(tarikh).to.include({ status: 'excluded', by_work: true });
    expect(tarikh.versions).to.deep.equal(HELD[0].versions);
    expect(exclusionText(tarikh)).to.equal('excluded 2 version(s) of 0292Yacqubi.Tarikh (by work): 0292Yacqubi.Tarikh.JK001493-ara1, 0292Yacqubi.Tarikh.Shamela01-ara1');
    expect(adab.status).to.equal('nothing_excluded');
    expect(exclusionText(adab)).to.equal('nothing excluded — source 0276IbnQutaybaDinawari.AdabKatib* matches no work in the OpenITI metadata');
    expect(none).to.include({ status: 'no_source', source_pattern: null });
    expect(exclusionText(none)).to.match(/^no source declared/);
  });

  it('by exclude pattern: names the patterns that hold out the source, and only those', () => {
    const [tarikh, adab] = datasetExclusions([TARIKH, ADAB], ['0292Yacqubi.Tarikh.JK001493-ara1', '0276IbnQutaybaDinawari.AnwaFiMawasim*'], null);
    expect(tarikh).to.deep.include({ status: 'excluded', by_work: false, works: [], exclude_patterns: ['0292Yacqubi.Tarikh.JK001493-ara1'] });
    expect(exclusionText(tarikh)).to.equal('excluded exclude pattern(s) 0292Yacqubi.Tarikh.JK001493-ara1');
    expect(adab).to.deep.include({ status: 'nothing_excluded', exclude_patterns: [] });
    expect(exclusionText(adab)).to.equal('nothing excluded — source 0276IbnQutaybaDinawari.AdabKatib* stays in the corpus');
  });

  it('says "unknown" when exclusion by work was on but nothing recorded what it held out', () => {
    const [tarikh] = datasetExclusions([TARIKH], [], 'unknown');
    expect(tarikh.status).to.equal('unknown');
    expect(exclusionText(tarikh)).to.match(/^unknown/);
  });

  describe('corpusExclusions (from the config and the corpus build record)', () => {
    let dir: string;
    const config = (corpus: Record<string, unknown>) =>
      parseConfig(
        {
          paths: { results_dir: dir },
          data: { openiti_root: path.join(dir, 'no-openiti') },
          phase5: { corpus },
          datasets: Object.fromEntries([TARIKH, ADAB, NONE].map((d) => [d.dataset, { type: 'paired_dir', path: dir, ...('source_pattern' in d ? { source_pattern: d.source_pattern } : {}) }])),
        },
        'leakage test',
        { env: {} },
      );
    beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'leakage-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reads what the build held out by work from corpus.jsonl.build.json, per dataset, --datasets applied', async () => {
      const c = config({ exclude_dataset_sources: true });
      const record = `${stagePaths(c, {}).corpus}.build.json`;
      mkdirSync(path.dirname(record), { recursive: true });
      writeFileSync(record, JSON.stringify({ settings: {}, summary: {}, excludedSources: HELD.map((h) => ({ ...h, source_pattern: 'x', patterns: [] })) }));
      const got = await corpusExclusions(c, {});
      expect(got.map((e) => [e.dataset, e.status, e.versions.length])).to.deep.equal([['tarikh', 'excluded', 2], ['adab', 'nothing_excluded', 0], ['none', 'no_source', 0]]);
      expect((await corpusExclusions(c, { datasets: ['adab'] })).map((e) => e.dataset)).to.deep.equal(['adab']);
    });

    it('without a build record or readable metadata, exclusion by work is "unknown"; without it, exclude patterns decide', async () => {
      expect((await corpusExclusions(config({ exclude_dataset_sources: true }), {})).map((e) => e.status)).to.deep.equal(['unknown', 'unknown', 'no_source']);
      const manual = await corpusExclusions(config({ exclude: ['0292Yacqubi.Tarikh*'] }), {});
      expect(manual.map((e) => [e.status, e.exclude_patterns])).to.deep.equal([['excluded', ['0292Yacqubi.Tarikh*']], ['nothing_excluded', []], ['no_source', []]]);
    });
  });
});
