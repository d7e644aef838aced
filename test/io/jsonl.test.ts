import { expect } from 'chai';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JsonlAppender, readJsonlAll, recoverJsonl, readJsonl, JsonlParseError } from '../../src/io/jsonl';

describe('io/jsonl', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jsonl-'));

  it('appends, checkpoints and reads back records in order', async () => {
    const file = path.join(dir, 'a.jsonl');
    const w = new JsonlAppender(file);
    for (let i = 0; i < 5; i++) w.write({ i, text: 'نص' });
    expect(w.checkpoint()).to.equal(5);
    w.close();
    const rows = await readJsonlAll<{ i: number }>(file);
    expect(rows.map((r) => r.i)).to.deep.equal([0, 1, 2, 3, 4]);
  });

  it('recovers from a torn last line and resumes without gap or duplicate', async () => {
    const file = path.join(dir, 'b.jsonl');
    const w = new JsonlAppender(file);
    w.write({ i: 0 });
    w.write({ i: 1 });
    w.close();
    appendFileSync(file, '{"i": 2, "trunc'); // crash mid-write
    const rec = recoverJsonl(file);
    expect(rec.records).to.equal(2);
    expect(rec.truncatedBytes).to.be.greaterThan(0);
    const w2 = new JsonlAppender(file, rec.records);
    w2.write({ i: 2 });
    w2.close();
    const rows = await readJsonlAll<{ i: number }>(file);
    expect(rows.map((r) => r.i)).to.deep.equal([0, 1, 2]);
    expect(readFileSync(file, 'utf8').endsWith('\n')).to.equal(true);
  });

  it('reports the file and line of invalid JSON', async () => {
    const file = path.join(dir, 'c.jsonl');
    appendFileSync(file, '{"ok":1}\n\nnot json\n');
    try {
      for await (const _ of readJsonl(file)) {
        /* consume */
      }
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.be.instanceOf(JsonlParseError);
      expect((err as Error).message).to.contain('c.jsonl:3');
    }
  });

  /** recoverJsonl on `complete + torn` against the definition: complete lines with a byte other than space, tab, CR. */
  function expectRecovered(name: string, complete: string, torn: string): void {
    const file = path.join(dir, `${name}.jsonl`);
    writeFileSync(file, complete + torn);
    const records = complete.split('\n').filter((line) => /[^ \t\r]/.test(line)).length;
    const bytes = Buffer.byteLength(complete);
    expect(recoverJsonl(file), name).to.deep.equal({ records, bytes, truncatedBytes: Buffer.byteLength(torn) });
    expect(readFileSync(file).length, `${name}: cut at the last newline`).to.equal(bytes);
  }

  it('counts the lines with content and cuts a torn tail at the 1 MB read boundary and around blank lines', () => {
    const MB = 1 << 20;
    expectRecovered('newline-opens-chunk', `${'x'.repeat(MB - 1)}\n{"i":1}\n`, '');
    expectRecovered('cr-opens-chunk', `${'x'.repeat(MB - 1)}\r\n`, '');
    expectRecovered('blank-lines-before-torn-tail', '{"i":1}\n  \n\t\n\n', '{"half');
    expectRecovered('leading-blanks-across-chunk', `${' '.repeat(MB + 5)}{"i":1}\n`, '   ');
    expectRecovered('blank-line-across-chunk', `${' '.repeat(MB)}\n`, '');
  });

  it('counts the lines with content and cuts a torn tail, whatever the line lengths and chunk boundaries (random files)', () => {
    // Lines of whitespace only (space, tab, CR), short records, and records longer than the 1 MB read chunk, so
    // lines begin, end and turn non-blank on either side of a chunk boundary; half the files end torn.
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
    for (let round = 0; round < 12; round++) {
      const pieces: string[] = [];
      while (pieces.join('').length < 3 << 20) {
        const blank = pick(['', ' ', '\t', '\r', '  \t ']);
        const body = pick(['{"i":1}', '{"t":"نص"}', `{"long":"${'x'.repeat(Math.floor(random() * (1 << 20)))}"}`]);
        pieces.push(random() < 0.3 ? blank : blank + body + pick(['', '\r', ' ']));
      }
      expectRecovered(
        `random-${round}`,
        pieces.join('\n') + '\n',
        round % 2 === 1 ? pick(['{"half', '   ', '\r', 'x'.repeat(1 << 20)]) : '',
      );
    }
  });

  it('treats a missing file as empty', () => {
    expect(recoverJsonl(path.join(dir, 'none.jsonl')).records).to.equal(0);
  });
});
