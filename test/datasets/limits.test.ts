/**
 * Dataset safety nets: an over-long line is a counted skip named by file:line (never a crash, never sent to the
 * tokenizer), and an empty dataset is an error naming the folder and the suffixes looked for (never a silent
 * export of 0 lines). Plus the tokenizer guard behind the old `Maximum call stack size exceeded`.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatasetError, loadDataset } from '../../src/datasets';
import { TextTokenizer } from '../../src/embed/tokenizer';
import { REPO_ROOT } from '../helpers/shared-data';

const LINE = 'وقال بعض الحكماء إن الصبر حصن منيع ';
const TWO_MB = LINE.repeat(Math.ceil((2 << 20) / Buffer.byteLength(LINE)));

describe('datasets: over-long lines and empty datasets', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ds-limits-'));

  it('paired_dir: a 2 MB OCR line is skipped, counted as tooLong with file:line, the rest is loaded', async () => {
    const book = path.join(dir, 'book');
    mkdirSync(book);
    writeFileSync(path.join(book, 'a.gt.txt'), 'وقال أبو عثمان');
    writeFileSync(path.join(book, 'a.png.rec.txt'), `سطر قصير\n${TWO_MB}`);
    writeFileSync(path.join(book, 'b.gt.txt'), 'وقال أبو عثمان في كتابه');
    writeFileSync(path.join(book, 'b.png.rec.txt'), 'وقال ابو عتمان في كتابه');
    const { samples, problems } = await loadDataset({ key: 'B', type: 'paired_dir', path: book });
    expect(samples.map((s) => s.sample_id)).to.deep.equal(['B/b']);
    expect(problems.tooLong).to.equal(1);
    expect(problems.examples.tooLong).to.deep.equal([
      `${path.join(book, 'a.png.rec.txt')}:2 (${TWO_MB.trim().length} chars > max_line_chars 20000)`,
    ]);
  });

  it('jsonl: the limit is configurable; a line at the limit is kept', async () => {
    const file = path.join(dir, 'd.jsonl');
    writeFileSync(
      file,
      [
        { ocr_text: 'ا'.repeat(100), gt_text: 'ب' },
        { ocr_text: 'ا'.repeat(101), gt_text: 'ب' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const { samples, problems } = await loadDataset({ key: 'J', type: 'jsonl', path: file }, { maxLineChars: 100 });
    expect(samples.map((s) => s.sample_id)).to.deep.equal(['J/1']);
    expect(problems.examples.tooLong).to.deep.equal([`${file}:2 (101 chars > max_line_chars 100)`]);
  });

  it('a folder with no OCR/gold pairs is an error naming the folder and the suffixes', async () => {
    const empty = path.join(dir, 'empty');
    mkdirSync(empty);
    writeFileSync(path.join(empty, 'manifest.txt'), 'x');
    writeFileSync(path.join(empty, 'only.gt.txt'), 'gold without OCR');
    let err: unknown;
    await loadDataset({ key: 'E', type: 'paired_dir', path: empty, ocrSuffix: '.ocr.txt' }).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(DatasetError);
    expect((err as Error).message).to.equal(
      `dataset "E": no OCR/gold pairs in ${empty} (looked for <name>.ocr.txt beside <name>.gt.txt; found 0 OCR and 1 gold files) — check the path and the dataset's ocr_suffix / gt_suffix`,
    );
  });

  it('a JSONL file without one usable line is an error naming the file', async () => {
    const file = path.join(dir, 'blank.jsonl');
    writeFileSync(file, '\n\n');
    let err: unknown;
    await loadDataset({ key: 'K', type: 'jsonl', path: file }).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(DatasetError);
    expect((err as Error).message).to.match(new RegExp(`^dataset "K": no samples in ${file} `));
  });

  it('tokenizer: a 2 MB line encodes (no stack overflow) to the same ids as its head', function () {
    const file = path.join(REPO_ROOT, 'models', 'multilingual-e5-small', 'tokenizer.json');
    if (!existsSync(file)) this.skip();
    const tok = TextTokenizer.load(file); // Unigram + Metaspace: the whole line is one pre-token
    const ids = tok.encode(TWO_MB, 512);
    expect(ids).to.have.length(512);
    expect(ids).to.deep.equal(tok.encode(LINE.repeat(200), 512));
  });
});
