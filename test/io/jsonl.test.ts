import { expect } from 'chai';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
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

  it('treats a missing file as empty', () => {
    expect(recoverJsonl(path.join(dir, 'none.jsonl')).records).to.equal(0);
  });
});
