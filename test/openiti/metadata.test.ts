import { expect } from 'chai';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES } from '../helpers/shared-data';
import { globToRegExp, MetadataError, readMetadata, resolveTextPath, splitMulti } from '../../src/openiti/metadata';
import { makeExcluder } from '../../src/openiti/work-exclusion';

const ROOT = path.join(FIXTURES, 'openiti', 'corpus');
const META = path.join(ROOT, 'metadata', 'OpenITI_metadata_2023-1-8.csv');

describe('openiti/metadata', () => {
  describe('readMetadata (2023-1-8 schema, tab-separated)', () => {
    it('parses rows: zero-padded date, status, " :: " multi-values, author/book URIs', async () => {
      const { rows, columns } = await readMetadata(META);
      expect(columns).to.have.length(17);
      expect(columns.at(-1)).to.equal('char_length');
      const r = rows.find((x) => x.versionUri === '0010AuthorA.BookOne.Fix001-ara1')!;
      expect(r.date).to.equal(10);
      expect(r.status).to.equal('pri');
      expect(r.authorUri).to.equal('0010AuthorA');
      expect(r.bookUri).to.equal('0010AuthorA.BookOne');
      expect(r.tags).to.deep.equal(['_NOTAG', 'FIXTURE']);
      expect(r.localPath).to.equal('../data/0010AuthorA/0010AuthorA.BookOne/0010AuthorA.BookOne.Fix001-ara1');
      expect(r.charLength).to.equal(500);
      expect(r.line).to.equal(2);
    });

    it('reports bad rows (missing columns, bad date) and a repeated URI with file:line, and skips them', async () => {
      const { rows, problems } = await readMetadata(META);
      expect(rows).to.have.length(12);
      expect(problems.map((p) => p.reason)).to.deep.equal(['bad_row', 'bad_row', 'duplicate_uri']);
      expect(problems[0].where).to.equal(`${META}:14`);
      expect(problems[0].detail).to.match(/expected 17 tab-separated columns, got 5/);
      expect(problems[1].detail).to.match(/date "NODATA"/);
      expect(problems[2].detail).to.match(/0450AuthorC\.Kitab\.Fix005-ara1 already listed/);
      // the first row of a repeated URI wins
      expect(rows.find((r) => r.versionUri === '0450AuthorC.Kitab.Fix005-ara1')!.status).to.equal('pri');
    });

    it('throws a clear error for a missing file, a comma-separated file, or a header without required columns', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'openiti-meta-'));
      await readMetadata(path.join(dir, 'nope.csv')).then(
        () => expect.fail('should throw'),
        (e) =>
          expect(e)
            .to.be.instanceOf(MetadataError)
            .and.have.property('message')
            .that.match(/not found/),
      );
      const csv = path.join(dir, 'comma.csv');
      writeFileSync(csv, 'version_uri,date,status,local_path\nx,0001,pri,../data/x\n');
      await readMetadata(csv).then(
        () => expect.fail('should throw'),
        (e) =>
          expect((e as Error).message).to.match(
            /comma\.csv:1: metadata header lacks column\(s\) version_uri, date, status, local_path \(the file must be tab-separated\)/,
          ),
      );
      const tsv = path.join(dir, 'partial.tsv');
      writeFileSync(tsv, 'version_uri\tdate\n');
      await readMetadata(tsv).then(
        () => expect.fail('should throw'),
        (e) => expect((e as Error).message).to.match(/lacks column\(s\) status, local_path/),
      );
    });

    it('accepts a BOM and CRLF line ends', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'openiti-meta-'));
      const f = path.join(dir, 'm.csv');
      writeFileSync(f, '\ufeffversion_uri\tdate\tstatus\tlocal_path\r\n0300A.B.C-ara1\t0300\tsec\t../data/x\r\n');
      const { rows, problems } = await readMetadata(f);
      expect(problems).to.deep.equal([]);
      expect(rows[0]).to.include({ versionUri: '0300A.B.C-ara1', date: 300, status: 'sec', localPath: '../data/x' });
    });

    it('splitMulti splits on " :: " and drops empties', () => {
      expect(splitMulti('a :: b ::  :: c')).to.deep.equal(['a', 'b', 'c']);
      expect(splitMulti('')).to.deep.equal([]);
    });
  });

  describe('exclude patterns', () => {
    it('matches glob patterns against the whole version URI', () => {
      const ex = makeExcluder(['0276IbnQutayba*', '*.Tarikh.*']);
      expect(ex('0276IbnQutaybaDinawari.AdabKatib.JK000973-ara1')).to.equal('0276IbnQutayba*');
      expect(ex('0292Yacqubi.Tarikh.Shamela0001-ara1')).to.equal('*.Tarikh.*');
      expect(ex('0292Yacqubi.Buldan.Shamela0002-ara1')).to.equal(null);
      expect(ex('X0276IbnQutaybaDinawari.AdabKatib')).to.equal(null);
    });

    it('treats regex characters literally', () => {
      expect(globToRegExp('a.b+c?').test('a.b+cX')).to.equal(true);
      expect(globToRegExp('a.b+c?').test('aXb+cX')).to.equal(false);
    });
  });

  describe('resolveTextPath', () => {
    const metaDir = path.join(ROOT, 'metadata');

    it('resolves local_path relative to the metadata folder', () => {
      const r = resolveTextPath(ROOT, metaDir, '../data/0010AuthorA/0010AuthorA.BookOne/0010AuthorA.BookOne.Fix001-ara1');
      expect(r.ok).to.equal(true);
      if (r.ok) expect(r.file).to.equal(path.join(ROOT, 'data/0010AuthorA/0010AuthorA.BookOne/0010AuthorA.BookOne.Fix001-ara1'));
    });

    it('tries .mARkdown / .completed / .inProgress when the listed file is absent', () => {
      const r = resolveTextPath(ROOT, metaDir, '../data/0010AuthorA/0010AuthorA.Diwan/0010AuthorA.Diwan.Fix003-ara1');
      expect(r.ok && r.file.endsWith('Fix003-ara1.mARkdown')).to.equal(true);
      // and the reverse: listed with an extension the file lacks
      const r2 = resolveTextPath(ROOT, metaDir, '../data/0010AuthorA/0010AuthorA.BookOne/0010AuthorA.BookOne.Fix001-ara1.inProgress');
      expect(r2.ok && r2.file.endsWith('Fix001-ara1')).to.equal(true);
    });

    it('falls back to the corpus root when the metadata file sits elsewhere', () => {
      const r = resolveTextPath(
        ROOT,
        path.join(ROOT, 'elsewhere', 'deeper'),
        '../data/0450AuthorC/0450AuthorC.Kitab/0450AuthorC.Kitab.Fix005-ara1',
      );
      expect(r.ok).to.equal(true);
      const r2 = resolveTextPath(ROOT, ROOT, 'data/0450AuthorC/0450AuthorC.Kitab/0450AuthorC.Kitab.Fix005-ara1');
      expect(r2.ok).to.equal(true);
    });

    it('never follows a path that leaves the root (../ or absolute)', () => {
      for (const p of ['../../../../../../../../etc/passwd', '/etc/passwd', '../data/../../../outside']) {
        const r = resolveTextPath(ROOT, metaDir, p);
        expect(r.ok, p).to.equal(false);
        if (!r.ok) expect(r.reason).to.equal('path_outside_root');
      }
    });

    it('rejects a symlink inside the root that points outside it', () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'openiti-link-'));
      mkdirSync(path.join(root, 'metadata'));
      mkdirSync(path.join(root, 'data', '0100A', '0100A.B'), { recursive: true });
      const outside = path.join(mkdtempSync(path.join(os.tmpdir(), 'openiti-out-')), 'secret');
      writeFileSync(outside, 'x');
      symlinkSync(outside, path.join(root, 'data', '0100A', '0100A.B', '0100A.B.C-ara1'));
      const r = resolveTextPath(root, path.join(root, 'metadata'), '../data/0100A/0100A.B/0100A.B.C-ara1');
      expect(r.ok).to.equal(false);
      if (!r.ok) expect(r.reason).to.equal('path_outside_root');
    });

    it('tells a missing file (author present) from an author absent from the checkout', () => {
      const missing = resolveTextPath(ROOT, metaDir, '../data/0300AuthorE/0300AuthorE.Lost/0300AuthorE.Lost.Fix007-ara1');
      expect(missing.ok).to.equal(false);
      if (!missing.ok) {
        expect(missing.reason).to.equal('missing');
        expect(missing.tried).to.have.length(4); // the 4 extension variants of the one in-root candidate
      }
      const gone = resolveTextPath(ROOT, metaDir, '../data/0005AuthorGone/0005AuthorGone.Book/0005AuthorGone.Book.Fix012-ara1');
      expect(!gone.ok && gone.reason).to.equal('author_not_in_checkout');
    });
  });
});
