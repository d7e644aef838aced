/**
 * Integration on the real OpenITI slice (../shared/data/openiti; skipped when absent). Bounded: builds
 * of 5,000 sentences over the `pri` texts (~83 MB, read twice per build).
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requireSharedData } from '../helpers/shared-data';
import { buildCorpus, dedupKey, scanEligible, type CorpusBuildSummary, type CorpusSentence } from '../../src/openiti';
import { readMetadata, resolveTextPath } from '../../src/openiti/metadata';
import { makeExcluder } from '../../src/openiti/work-exclusion';
import { codePointLength, parseOpenITIFile, parseOpenITIText } from '../../src/openiti';
import { hash53 } from '../../src/openiti/sampling';

const records = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as CorpusSentence);

describe('openiti on the real slice (integration)', function () {
  this.timeout(300_000);
  let root: string;
  let dir: string;
  let first: CorpusBuildSummary;

  before(async function () {
    root = requireSharedData(this, 'openiti');
    dir = mkdtempSync(path.join(os.tmpdir(), 'openiti-real-'));
    first = await buildCorpus({ openitiRoot: root, outPath: path.join(dir, 'a.jsonl'), maxSentences: 5000, progressMode: 'silent' });
  });

  it('reads the 2023-1-8 metadata: 665 rows (321 pri, 344 sec), no bad rows', async () => {
    const meta = await readMetadata(path.join(root, 'metadata', 'OpenITI_metadata_2023-1-8.csv'));
    expect(meta.problems).to.deep.equal([]);
    expect(meta.rows).to.have.length(665);
    expect(meta.rows.filter((r) => r.status === 'pri')).to.have.length(321);
    expect(meta.rows.filter((r) => r.date <= 50)).to.have.length(82);
  });

  it('pri build: the 2 known-absent pri texts are "missing", the 36 pri rows of 0001–0025 are not in the checkout', () => {
    expect(first.files.considered).to.equal(665);
    expect(first.files.statusFiltered).to.equal(344);
    expect(first.files.skipped).to.deep.equal({
      missing: 2,
      author_not_in_checkout: 36,
      path_outside_root: 0,
      unreadable: 0,
      not_utf8: 0,
      no_header: 0,
    });
    expect(first.files.examples.missing.join('\n'))
      .to.match(/0279Baladhuri\.AnsabAshraf\.Shamela0009773-ara1/)
      .and.match(/0292AbuBakrBazzar\.BahrZakhkhar\.Shamela0012981-ara1/);
    expect(first.files.parsed).to.equal(283);
  });

  it('all statuses: exactly the 4 known-absent files are missing (Baladhuri.AnsabAshraf ×2, AbuBakrBazzar.BahrZakhkhar ×2)', async () => {
    // The same resolution buildCorpus does, without parsing 228 MB twice.
    const metaPath = path.join(root, 'metadata', 'OpenITI_metadata_2023-1-8.csv');
    const { rows } = await readMetadata(metaPath);
    const outcome = rows.map((r) => ({ uri: r.versionUri, r: resolveTextPath(root, path.dirname(metaPath), r.localPath) }));
    const missing = outcome.filter((o) => !o.r.ok && o.r.reason === 'missing').map((o) => o.uri);
    expect(missing.sort()).to.deep.equal([
      '0279Baladhuri.AnsabAshraf.JK010481-ara2',
      '0279Baladhuri.AnsabAshraf.Shamela0009773-ara1',
      '0292AbuBakrBazzar.BahrZakhkhar.JK000783-ara1',
      '0292AbuBakrBazzar.BahrZakhkhar.Shamela0012981-ara1',
    ]);
    expect(outcome.filter((o) => !o.r.ok && o.r.reason === 'author_not_in_checkout')).to.have.length(36 + 31);
    expect(outcome.filter((o) => o.r.ok)).to.have.length(283 + 311);
    expect(outcome.some((o) => !o.r.ok && o.r.reason === 'path_outside_root')).to.equal(false);
  });

  it('era breakdown (config eras, 300 AH in "0-300"): every author of the slice is early, so the other eras fall short and the first takes their share, reported', () => {
    expect(first.totalWritten).to.equal(5000);
    expect(first.eras.map((e) => e.name)).to.deep.equal(['0-300', '300-600', '600-900', '900+']);
    expect(first.eras.map((e) => e.target)).to.deep.equal([500, 1500, 1500, 1500]);
    expect(first.eras.map((e) => e.authors)).to.deep.equal([89, 0, 0, 0]);
    expect(first.eras.map((e) => e.shortfall)).to.deep.equal([0, 1500, 1500, 1500]);
    expect(first.eras.map((e) => e.received)).to.deep.equal([4500, 0, 0, 0]);
    expect(first.eras.map((e) => e.written)).to.deep.equal([5000, 0, 0, 0]);
  });

  it("with a boundary at 300 ([300, 600) …), the 14 authors dated 300 AH form their own era and the empty eras' share is split by fraction", async () => {
    const eras = [
      { name: 'early', from: 0, to: 300, fraction: 0.1 },
      { name: 'classical', from: 300, to: 600, fraction: 0.3 },
      { name: 'late', from: 600, to: 900, fraction: 0.3 },
      { name: 'post', from: 900, to: 100000, fraction: 0.3 },
    ];
    const s = await buildCorpus({
      openitiRoot: root,
      outPath: path.join(dir, 'split300.jsonl'),
      maxSentences: 5000,
      eras,
      progressMode: 'silent',
    });
    expect(s.eras.map((e) => e.authors)).to.deep.equal([75, 14, 0, 0]);
    expect(s.eras.map((e) => e.shortfall)).to.deep.equal([0, 0, 1500, 1500]);
    // 3000 to share by fraction between the two eras with text: 0.1 : 0.3
    expect(s.eras.map((e) => e.received)).to.deep.equal([750, 2250, 0, 0]);
    expect(s.eras.map((e) => e.written)).to.deep.equal([1250, 3750, 0, 0]);
  });

  it('no author gets more than an equal share of its era', () => {
    const recs = records(path.join(dir, 'a.jsonl'));
    for (const era of first.eras.filter((e) => e.written > 0)) {
      const perAuthor = new Map<string, number>();
      for (const r of recs.filter((x) => x.date >= era.from && x.date < era.to)) {
        const a = r.source_uri.split('.')[0];
        perAuthor.set(a, (perAuthor.get(a) ?? 0) + 1);
      }
      expect(perAuthor.size, era.name).to.equal(era.authors);
      // every author here has more eligible sentences than the level, so each gets ⌊avg⌋ or ⌈avg⌉
      expect(Math.max(...perAuthor.values()), era.name).to.equal(Math.ceil(era.written / era.authors));
      expect(Math.min(...perAuthor.values()), era.name).to.equal(Math.floor(era.written / era.authors));
    }
    expect(recs.every((r, i) => r.idx === i && r.char_len >= 30 && r.char_len <= 300)).to.equal(true);
    expect(recs.every((r) => (r.text.match(/[\u0621-\u064a]/g) ?? []).length >= 10)).to.equal(true);
  });

  it('is deterministic: a second build is byte-identical', async () => {
    const second = await buildCorpus({ openitiRoot: root, outPath: path.join(dir, 'b.jsonl'), maxSentences: 5000, progressMode: 'silent' });
    expect(second.corpusSha256).to.equal(first.corpusSha256);
    expect(readFileSync(path.join(dir, 'b.jsonl')).equals(readFileSync(path.join(dir, 'a.jsonl')))).to.equal(true);
  });

  it('on a sample of real files, streaming gives the whole-text parse, and the char lengths and key hashes found while cleaning are exact', async () => {
    const metaPath = path.join(root, 'metadata', 'OpenITI_metadata_2023-1-8.csv');
    const { rows } = await readMetadata(metaPath);
    const files = rows.flatMap((r) => {
      const x = resolveTextPath(root, path.dirname(metaPath), r.localPath);
      return x.ok ? [x.file] : [];
    });
    // 15 files of all kinds (a few MB), plus the one text of the slice with many vocalised lines
    const sample = files.filter((f, i) => i % 40 === 0 || f.endsWith('0298IshaqIbnHunayn.TafsirNiqulawusFiNabat.GRAR000059-ara1'));
    expect(sample).to.have.length(16);
    let lines = 0;
    let marked = 0;
    for (const f of sample) {
      const streamed: string[] = [];
      await parseOpenITIFile(f, (text, p) => {
        streamed.push(text);
        expect(p.lastCharLen, text).to.equal(codePointLength(text));
        expect(p.lastKeyHashHi * 2 ** 32 + p.lastKeyHashLo, text).to.equal(hash53(dedupKey(text)));
        if (p.lastHasMarks) marked++;
        else expect(dedupKey(text), text).to.equal(text);
      });
      expect(streamed, f).to.deep.equal(parseOpenITIText(readFileSync(f, 'utf8'), { file: f }));
      lines += streamed.length;
      // scanEligible's dedup on those hashes keeps the first of each dedup key, exactly
      const seen = new Set<string>();
      const expected = streamed.filter((t) => {
        const n = codePointLength(t);
        if (n < 30 || n > 300 || seen.has(dedupKey(t))) return false;
        seen.add(dedupKey(t));
        return true;
      });
      const eligible: string[] = [];
      await scanEligible(f, { minCharLen: 30, maxCharLen: 300 }, (l) => eligible.push(l.text()));
      expect(eligible, f).to.deep.equal(expected);
    }
    expect(lines).to.be.greaterThan(10_000);
    expect(marked).to.be.greaterThan(100);
  });

  it('exclude holds the OCR source books (Ibn Qutayba, al-Yacqubi) out of the corpus', async () => {
    const exclude = ['0276IbnQutayba*', '0292Yacqubi*'];
    const s = await buildCorpus({
      openitiRoot: root,
      outPath: path.join(dir, 'ex.jsonl'),
      maxSentences: 5000,
      exclude,
      progressMode: 'silent',
    });
    const { rows } = await readMetadata(path.join(root, 'metadata', 'OpenITI_metadata_2023-1-8.csv'));
    const ex = makeExcluder(exclude);
    expect(s.files.excluded).to.equal(rows.filter((r) => r.status === 'pri' && ex(r.versionUri) !== null).length);
    expect(s.files.excluded).to.equal(18 + 3);
    const recs = records(path.join(dir, 'ex.jsonl'));
    expect(recs).to.have.length(5000);
    expect(recs.some((r) => r.source_uri.startsWith('0276IbnQutayba') || r.source_uri.startsWith('0292Yacqubi'))).to.equal(false);
    expect(records(path.join(dir, 'a.jsonl')).some((r) => r.source_uri.startsWith('0276IbnQutayba'))).to.equal(true);
  });
});
