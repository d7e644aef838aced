/**
 * Leakage control by work (`corpus.exclude_dataset_sources`): a dataset's source pattern excludes every
 * version of the work it names, on the real OpenITI metadata and in a real corpus build — and nothing else.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusExclusions } from '../../analysis/stage/corpus-exclusions';
import { parseConfig } from '../../src/config/load';
import { readMetadata, type MetadataRow } from '../../src/openiti/metadata';
import { makeExcluder } from '../../src/openiti/work-exclusion';
import { sourceWorkExclusions } from '../../src/openiti/source-works';
import { buildCorpus, optionsFrom } from '../../src/stages/build/build';
import { OCR_GS_ROOT, requireSharedData } from '../helpers/shared-data';

const SOURCES = [
  { dataset: 'OCR_GS-IbnQutayba.Adab', source_pattern: '0276IbnQutaybaDinawari.AdabKatib*' },
  // One exact version, as a manual exclude would name it: by work, its sibling versions go too.
  { dataset: 'OCR_GS-Yacqubi.Tarikh', source_pattern: '0292Yacqubi.Tarikh.JK001493-ara1' },
  { dataset: 'no-source', source_pattern: undefined },
];

describe('openiti/source-works: leakage by work', function () {
  this.timeout(300000);
  let rows: MetadataRow[];
  let openiti: string;

  before(async function () {
    openiti = requireSharedData(this, 'openiti');
    rows = (await readMetadata(path.join(openiti, 'metadata', 'OpenITI_metadata_2023-1-8.csv'))).rows;
  });

  it('resolves each source to its work and lists every version of it in the slice', () => {
    const [adab, tarikh, ...rest] = sourceWorkExclusions(SOURCES, rows);
    expect(rest).to.deep.equal([]); // a dataset without a source pattern excludes nothing
    expect(adab.works).to.deep.equal(['0276IbnQutaybaDinawari.AdabKatib']);
    expect(adab.versions).to.deep.equal(
      rows
        .filter((r) => r.bookUri === '0276IbnQutaybaDinawari.AdabKatib')
        .map((r) => r.versionUri)
        .sort(),
    );
    expect(adab.versions).to.have.length.greaterThan(1);
    expect(tarikh.works).to.deep.equal(['0292Yacqubi.Tarikh']);
    expect(tarikh.versions)
      .to.have.length(rows.filter((r) => r.bookUri === '0292Yacqubi.Tarikh').length)
      .and.to.have.length.greaterThan(1);
  });

  it('the exclude patterns hold out exactly those versions — no other work of the same author', () => {
    const found = sourceWorkExclusions(SOURCES, rows);
    const exclude = makeExcluder(found.flatMap((e) => e.patterns));
    const held = rows
      .filter((r) => exclude(r.versionUri) !== null)
      .map((r) => r.versionUri)
      .sort();
    expect(held).to.deep.equal(found.flatMap((e) => e.versions).sort());
    expect(held.some((v) => v.startsWith('0292Yacqubi.Buldan') || v.startsWith('0276IbnQutaybaDinawari.AnwaFiMawasim'))).to.equal(false);
    // Control: the version pattern alone would leave the sibling versions of the Tarikh in the corpus.
    const byVersion = rows.filter((r) => makeExcluder(['0292Yacqubi.Tarikh.JK001493-ara1'])(r.versionUri) !== null);
    expect(byVersion).to.have.length(1);
  });

  it('a real corpus build with exclude_dataset_sources has no sentence of those works and reports them per dataset', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'source-works-'));
    const config = parseConfig(
      {
        paths: { results_dir: dir },
        data: { openiti_root: openiti },
        corpus: { max_sentences: 600, exclude_dataset_sources: true, status_filter: 'all' },
        datasets: Object.fromEntries(
          SOURCES.map((s) => [
            s.dataset,
            {
              type: 'paired_dir',
              path: path.join(OCR_GS_ROOT, 'book_IbnQutayba.Adab'),
              ...(s.source_pattern ? { source_pattern: s.source_pattern } : {}),
            },
          ]),
        ),
      },
      'source-works test',
      { env: {} },
    );
    const result = await buildCorpus(optionsFrom(config, {}));
    expect(result.excludedSources?.map((e) => [e.dataset, e.works])).to.deep.equal([
      ['OCR_GS-IbnQutayba.Adab', ['0276IbnQutaybaDinawari.AdabKatib']],
      ['OCR_GS-Yacqubi.Tarikh', ['0292Yacqubi.Tarikh']],
    ]);
    const uris = readFileSync(result.corpusPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { source_uri: string }).source_uri);
    expect(uris.length).to.be.greaterThan(100);
    expect(uris.filter((u) => u.startsWith('0276IbnQutaybaDinawari.AdabKatib.') || u.startsWith('0292Yacqubi.Tarikh.'))).to.deep.equal([]);
    // The build record keeps the list, and the arms analysis states exactly that per dataset.
    const record = JSON.parse(readFileSync(`${result.corpusPath}.build.json`, 'utf8')) as { excludedSources: unknown };
    expect(record.excludedSources).to.deep.equal(result.excludedSources);
    const stated = await corpusExclusions(config, {});
    expect(stated.map((e) => [e.dataset, e.status, e.versions])).to.deep.equal([
      ['OCR_GS-IbnQutayba.Adab', 'excluded', result.excludedSources![0].versions],
      ['OCR_GS-Yacqubi.Tarikh', 'excluded', result.excludedSources![1].versions],
      ['no-source', 'no_source', []],
    ]);
  });
});
