import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { datasetExclusions, exclusionText, sourceExcluded, sourceHitMatcher, sourceStatus } from '../../../analysis/inputs/leakage';
import { corpusExclusions } from '../../../analysis/stage/corpus-exclusions';
import { parseConfig } from '../../../src/config/load';
import { makeExcluder } from '../../../src/openiti/work-exclusion';
import { effectiveExcludePatterns, workOf } from '../../../src/openiti/work-exclusion';
import { stagePaths } from '../../../src/stages/build/build';

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

/** The URIs above as metadata rows (work = the first two dot-separated parts). */
const ROWS = URIS.map((versionUri) => ({ versionUri, bookUri: workOf(versionUri) }));

describe("analysis/leakage: the report uses the build's own rule (src/openiti/work-exclusion.ts)", () => {
  for (const [pattern, held] of EXPECTED) {
    it(`corpus exclusion and the leakage line agree for exclude "${pattern}"`, () => {
      const excluder = makeExcluder([pattern]);
      const rule = { exclude: [pattern], held: null, rows: ROWS };
      URIS.forEach((uri, i) => {
        const built = excluder(uri) !== null;
        expect(built, `makeExcluder(${pattern})(${uri})`).to.equal(held.includes(i));
        // The source (this exact version) is excluded only when the build drops every version of its work.
        const sameWork = URIS.filter((u) => workOf(u) === workOf(uri));
        const kept = sameWork.filter((u) => excluder(u) === null);
        expect(sourceExcluded(uri, rule), `sourceExcluded(${uri}) under [${pattern}]`).to.equal(kept.length === 0);
        const status = sourceStatus(uri, rule)!.status;
        expect(status).to.equal(kept.length === 0 ? 'excluded' : kept.length < sameWork.length ? 'partly_excluded' : 'not_excluded');
      });
    });
  }

  it('one excluded version while other versions of the work stay is PARTLY excluded, not excluded', () => {
    const rule = { exclude: ['0292Yacqubi.Tarikh.Shamela0001234-ara1'], held: null, rows: ROWS };
    const corpus = URIS.filter((u) => makeExcluder(rule.exclude)(u) === null);
    expect(corpus).to.include('0292Yacqubi.Tarikh.Shamela0001235-ara1'); // the build keeps another version ...
    expect(sourceExcluded('0292Yacqubi.Tarikh.Shamela0001234-ara1', rule)).to.equal(false); // ... so the report may not say "excluded"
    expect(sourceStatus('0292Yacqubi.Tarikh*', rule)!.status).to.equal('partly_excluded');
    const [e] = datasetExclusions([{ dataset: 'y', source_pattern: '0292Yacqubi.Tarikh.Shamela0001234-ara1' }], rule.exclude, null, ROWS);
    expect(e.status).to.equal('partly_excluded');
    expect(exclusionText(e)).to.match(/^PARTLY excluded .* other versions of the work stay/);
    // Without metadata the other versions are unknown: still not "excluded", since no pattern holds out the whole work.
    expect(sourceExcluded('0292Yacqubi.Tarikh.Shamela0001234-ara1', { ...rule, rows: null })).to.equal(false);
  });

  it('a glob the build applies counts as excluded, also when the source pattern is written differently', () => {
    for (const ex of ['*Yacqubi.Tarikh.*', '0292Yacqubi.Tarikh.Shamela000123?-ara?', '?292Yacqubi.Tarikh.*']) {
      const rule = { exclude: [ex], held: null, rows: ROWS };
      const versions = URIS.filter((u) => workOf(u) === '0292Yacqubi.Tarikh');
      expect(
        versions.every((u) => makeExcluder([ex])(u) !== null),
        ex,
      ).to.equal(true);
      expect(sourceExcluded('0292Yacqubi.Tarikh.*', rule), ex).to.equal(true);
      expect(sourceExcluded('0292Yacqubi.Tarikh.Shamela0001235-ara1', rule), ex).to.equal(true);
      // `0292Yacqubi.Tarikh*` also names the work 0292Yacqubi.TarikhX (as exclusion by work resolves it), which stays.
      expect(sourceStatus('0292Yacqubi.Tarikh*', rule)!.works).to.deep.equal(['0292Yacqubi.Tarikh', '0292Yacqubi.TarikhX']);
      expect(sourceExcluded('0292Yacqubi.Tarikh*', rule), ex).to.equal(false);
    }
    // Exclusion by work: the `<work>.*` patterns the build adds hold out every version, with or without metadata.
    const byWork = { exclude: [], held: [{ patterns: ['0292Yacqubi.Tarikh.*'] }], rows: null };
    expect(sourceExcluded('0292Yacqubi.Tarikh.Shamela0001234-ara1', byWork)).to.equal(true);
    expect(effectiveExcludePatterns(['a*'], byWork.held)).to.deep.equal(['a*', '0292Yacqubi.Tarikh.*']);
  });

  it('hits from the source work: every version of the work, as a version URI or a path, and nothing else', () => {
    const st = sourceStatus('0292Yacqubi.Tarikh.Shamela0001234-ara1', { exclude: [], held: null, rows: ROWS })!;
    const hit = sourceHitMatcher({ sourcePattern: '0292Yacqubi.Tarikh.Shamela0001234-ara1', sourceWorks: st.works })!;
    expect(URIS.filter(hit)).to.deep.equal(URIS.filter((u) => workOf(u) === '0292Yacqubi.Tarikh'));
    expect(hit('data/0292Yacqubi/0292Yacqubi.Tarikh/0292Yacqubi.Tarikh.Shamela0001235-ara1')).to.equal(true);
    expect(hit('0292Yacqubi.TarikhX.Shamela0009999-ara1')).to.equal(false);
    expect(sourceHitMatcher({})).to.equal(null);
  });

  it('reports nothing excluded without patterns or without a source pattern', () => {
    expect(sourceExcluded('0292Yacqubi.Tarikh*', { exclude: [], held: null, rows: ROWS })).to.equal(false);
    expect(sourceExcluded(undefined, { exclude: ['*'], held: null, rows: ROWS })).to.equal(false);
    expect(sourceExcluded('', { exclude: ['*'], held: null, rows: ROWS })).to.equal(false);
  });
});

describe('analysis/leakage: what the corpus excluded, per dataset (Arms section, arms.json)', () => {
  const TARIKH = { dataset: 'tarikh', source_pattern: '0292Yacqubi.Tarikh.JK001493-ara1' };
  const ADAB = { dataset: 'adab', source_pattern: '0276IbnQutaybaDinawari.AdabKatib*' };
  const NONE = { dataset: 'none' };
  const HELD = [
    {
      dataset: 'tarikh',
      works: ['0292Yacqubi.Tarikh'],
      versions: ['0292Yacqubi.Tarikh.JK001493-ara1', '0292Yacqubi.Tarikh.Shamela01-ara1'],
    },
    { dataset: 'adab', works: [], versions: [] }, // its pattern named no work in the metadata
  ];

  it('by work: lists the works and versions held out; a pattern that names no work and a missing source exclude nothing', () => {
    const [tarikh, adab, none] = datasetExclusions([TARIKH, ADAB, NONE], [], HELD);
    expect(tarikh).to.include({ status: 'excluded', by_work: true });
    expect(tarikh.versions).to.deep.equal(HELD[0].versions);
    expect(exclusionText(tarikh)).to.equal(
      'excluded 2 version(s) of 0292Yacqubi.Tarikh (by work): 0292Yacqubi.Tarikh.JK001493-ara1, 0292Yacqubi.Tarikh.Shamela01-ara1',
    );
    expect(adab.status).to.equal('nothing_excluded');
    expect(exclusionText(adab)).to.equal(
      'nothing excluded — source 0276IbnQutaybaDinawari.AdabKatib* matches no work in the OpenITI metadata',
    );
    expect(none).to.include({ status: 'no_source', source_pattern: null });
    expect(exclusionText(none)).to.match(/^no source declared/);
  });

  it('by exclude pattern: names the patterns that hold out the source, and only those', () => {
    const [tarikh, adab] = datasetExclusions(
      [TARIKH, ADAB],
      ['0292Yacqubi.Tarikh.JK001493-ara1', '0276IbnQutaybaDinawari.AnwaFiMawasim*'],
      null,
    );
    // One version held out, the work's other versions (unknown here) not: partly excluded, never "excluded".
    expect(tarikh).to.deep.include({
      status: 'partly_excluded',
      by_work: false,
      works: [],
      exclude_patterns: ['0292Yacqubi.Tarikh.JK001493-ara1'],
    });
    expect(exclusionText(tarikh)).to.equal(
      'PARTLY excluded exclude pattern(s) 0292Yacqubi.Tarikh.JK001493-ara1 — other versions of the work stay in the corpus',
    );
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
          corpus,
          datasets: Object.fromEntries(
            [TARIKH, ADAB, NONE].map((d) => [
              d.dataset,
              { type: 'paired_dir', path: dir, ...('source_pattern' in d ? { source_pattern: d.source_pattern } : {}) },
            ]),
          ),
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
      writeFileSync(
        record,
        JSON.stringify({ settings: {}, summary: {}, excludedSources: HELD.map((h) => ({ ...h, source_pattern: 'x', patterns: [] })) }),
      );
      const got = await corpusExclusions(c, {});
      expect(got.map((e) => [e.dataset, e.status, e.versions.length])).to.deep.equal([
        ['tarikh', 'excluded', 2],
        ['adab', 'nothing_excluded', 0],
        ['none', 'no_source', 0],
      ]);
      expect((await corpusExclusions(c, { datasets: ['adab'] })).map((e) => e.dataset)).to.deep.equal(['adab']);
    });

    it('without a build record or readable metadata, exclusion by work is "unknown"; without it, exclude patterns decide', async () => {
      expect((await corpusExclusions(config({ exclude_dataset_sources: true }), {})).map((e) => e.status)).to.deep.equal([
        'unknown',
        'unknown',
        'no_source',
      ]);
      const manual = await corpusExclusions(config({ exclude: ['0292Yacqubi.Tarikh*'] }), {});
      expect(manual.map((e) => [e.status, e.exclude_patterns])).to.deep.equal([
        ['excluded', ['0292Yacqubi.Tarikh*']],
        ['nothing_excluded', []],
        ['no_source', []],
      ]);
    });
  });
});
