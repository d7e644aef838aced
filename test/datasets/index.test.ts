import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { discoverPairedDirs, loadDataset, loadDatasets, totalProblems } from '../../src/datasets';
import { FIXTURES, requireSharedData } from '../helpers/shared-data';

const PAIRED = path.join(FIXTURES, 'datasets', 'paired');
const MIXED = path.join(FIXTURES, 'datasets', 'mixed.jsonl');

describe('datasets: paired_dir', () => {
  it('pairs files by stem in sorted order, trims texts, prefixes sample_id with the key', async () => {
    const { samples, available } = await loadDataset({ key: 'FIX', type: 'paired_dir', path: PAIRED });
    expect(samples.map((s) => s.sample_id)).to.deep.equal(['FIX/0001', 'FIX/0002', 'FIX/0007']);
    expect(available).to.equal(5); // 0001 0002 0005 0006 0007 have both files
    expect(samples[0]).to.deep.equal({ sample_id: 'FIX/0001', dataset: 'FIX', ocr_text: 'قال ابو عتمان', gt_text: 'قال أبو عثمان' });
    expect(samples[1].ocr_text).to.equal('والحمد للة');
    // An empty OCR output is a legitimate sample.
    expect(samples[2]).to.include({ ocr_text: '', gt_text: 'في الكتاب' });
  });

  it('counts and names orphans, non-UTF-8 and empty gold files (manifest and subfolders ignored)', async () => {
    const { problems } = await loadDataset({ key: 'FIX', type: 'paired_dir', path: PAIRED });
    expect(problems).to.include({ missingOcr: 1, missingGt: 1, unreadable: 1, emptyGt: 1, badLines: 0, duplicateIds: 0 });
    expect(problems.examples.missingOcr).to.deep.equal(['0003.gt.txt']);
    expect(problems.examples.missingGt).to.deep.equal(['0004.png.rec.txt']);
    expect(problems.examples.unreadable![0]).to.match(/^0005\.gt\.txt \(not valid UTF-8\)$/);
    expect(problems.examples.emptyGt).to.deep.equal(['0006.gt.txt']);
    expect(totalProblems(problems)).to.equal(4);
  });

  it('applies limit to the sorted pairs, deterministically', async () => {
    const a = await loadDataset({ key: 'FIX', type: 'paired_dir', path: PAIRED }, { limit: 2 });
    const b = await loadDataset({ key: 'FIX', type: 'paired_dir', path: PAIRED }, { limit: 2 });
    expect(a.samples.map((s) => s.sample_id)).to.deep.equal(['FIX/0001', 'FIX/0002']);
    expect(b.samples).to.deep.equal(a.samples);
    expect((await loadDataset({ key: 'FIX', type: 'paired_dir', path: PAIRED }, { limit: 0 })).samples).to.have.length(0);
  });

  it('honours custom suffixes, also overlapping ones', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ds-'));
    try {
      writeFileSync(path.join(dir, 'x.txt'), 'gold');
      writeFileSync(path.join(dir, 'x.rec.txt'), 'ocr');
      writeFileSync(path.join(dir, 'y.txt'), 'gold only');
      const { samples, problems } = await loadDataset({ key: 'K', type: 'paired_dir', path: dir, gtSuffix: '.txt', ocrSuffix: '.rec.txt' });
      expect(samples).to.deep.equal([{ sample_id: 'K/x', dataset: 'K', ocr_text: 'ocr', gt_text: 'gold' }]);
      expect(problems.missingOcr).to.equal(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails clearly on a missing directory, bad options and unknown types', async () => {
    let err: Error | undefined;
    try {
      await loadDataset({ key: 'NOPE', type: 'paired_dir', path: '/nonexistent/dir' });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).to.match(/dataset "NOPE": directory not found: \/nonexistent\/dir/);
    await loadDataset({ key: 'K', type: 'paired_dir', path: PAIRED }, { limit: -1 }).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.match(/limit must be a non-negative integer/),
    );
    await loadDataset({ key: 'K', type: 'csv', path: PAIRED } as never).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.match(/unknown type "csv"/),
    );
    await loadDatasets([
      { key: 'A', type: 'jsonl', path: MIXED },
      { key: 'A', type: 'jsonl', path: MIXED },
    ]).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.match(/"A" is declared twice/),
    );
  });
});

describe('datasets: jsonl', () => {
  it('reads good lines, defaults sample_id to <key>/<line>, skips and counts bad lines with file:line', async () => {
    const { samples, problems, available } = await loadDataset({ key: 'J', type: 'jsonl', path: MIXED });
    expect(samples.map((s) => s.sample_id)).to.deep.equal(['s-1', 'J/2', '42', 'J/11']);
    expect(samples[0]).to.deep.equal({ sample_id: 's-1', dataset: 'J', ocr_text: 'قال ابو عتمان', gt_text: 'قال أبو عثمان' });
    expect(available).to.equal(4);
    expect(problems).to.include({ badLines: 3, duplicateIds: 1, unreadable: 1, emptyGt: 1 });
    expect(problems.examples.badLines).to.deep.equal([
      `${MIXED}:3: invalid JSON (${errorOf('{"ocr_text":"broken"')})`,
      `${MIXED}:5: not a JSON object`,
      `${MIXED}:6: field "gt_text" must be a string, got number`,
    ]);
    expect(problems.examples.duplicateIds).to.deep.equal([`${MIXED}:7: s-1`]);
    expect(problems.examples.unreadable).to.deep.equal([`${MIXED}:8: not valid UTF-8`]);
    expect(problems.examples.emptyGt).to.deep.equal([`${MIXED}:10`]);
  });

  it('fails on the first bad line when onBadLine is "fail"', async () => {
    await loadDataset({ key: 'J', type: 'jsonl', path: MIXED, onBadLine: 'fail' }).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.equal(`${MIXED}:3: invalid JSON (${errorOf('{"ocr_text":"broken"')})`),
    );
  });

  it('limits the samples but still counts the whole file', async () => {
    const { samples, available, problems } = await loadDataset({ key: 'J', type: 'jsonl', path: MIXED }, { limit: 1 });
    expect(samples.map((s) => s.sample_id)).to.deep.equal(['s-1']);
    expect(available).to.equal(4);
    expect(problems.badLines).to.equal(3);
  });

  it('names a missing file', async () => {
    await loadDataset({ key: 'J', type: 'jsonl', path: '/nonexistent.jsonl' }).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.equal('dataset "J": file not found: /nonexistent.jsonl'),
    );
  });
});

function errorOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('parsed');
}

describe('datasets: real OCR_GS', function () {
  const EXPECTED: Record<string, number> = {
    'OCR_GS-IbnAthir.Kamil': 794,
    'OCR_GS-IbnFaqihHamadhani.Buldan': 1466,
    'OCR_GS-IbnQutayba.Adab': 790,
    'OCR_GS-Jahiz.Hayawan': 992,
    'OCR_GS-Yacqubi.Tarikh': 1050,
  };

  it('discovers the five books and loads every line pair with no problem', async function () {
    const root = requireSharedData(this, 'ocr-gs');
    const specs = await discoverPairedDirs(root);
    expect(specs.map((s) => s.key)).to.deep.equal(Object.keys(EXPECTED));
    const loaded = await loadDatasets(specs);
    for (const d of loaded) {
      expect(d.samples.length, d.key).to.equal(EXPECTED[d.key]);
      expect(totalProblems(d.problems), d.key).to.equal(0);
      for (const s of d.samples) {
        expect(s.gt_text).to.equal(s.gt_text.trim());
        expect(s.gt_text.length).to.be.greaterThan(0);
      }
    }
    const jahiz = loaded.find((d) => d.key === 'OCR_GS-Jahiz.Hayawan')!;
    const book = path.join(root, 'book_Jahiz.Hayawan');
    const raw = (name: string) => readFileSync(path.join(book, name), 'utf8');
    expect(raw('000000.gt.txt').startsWith(' '), 'the real files start with a space').to.equal(true);
    expect(jahiz.samples[0]).to.deep.equal({
      sample_id: 'OCR_GS-Jahiz.Hayawan/000000',
      dataset: 'OCR_GS-Jahiz.Hayawan',
      ocr_text: raw('000000.png.rec.txt').trim(),
      gt_text: raw('000000.gt.txt').trim(),
    });
    expect(jahiz.samples[991].sample_id).to.equal('OCR_GS-Jahiz.Hayawan/001006'); // stems have gaps; the last one
    const ids = loaded.flatMap((d) => d.samples.map((s) => s.sample_id));
    expect(new Set(ids).size).to.equal(ids.length);
  });
});
