/** LineWriter: text and bytes reach the file in the order written, in batches, and a file opened with 'a' is appended to. */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LineWriter } from '../../src/io/line-writer';

describe('io/line-writer', () => {
  let tmp: string;
  before(() => (tmp = mkdtempSync(path.join(os.tmpdir(), 'line-writer-'))));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('holds text until about flushChars are waiting, then writes it; close writes the rest', async () => {
    const file = path.join(tmp, 'nested', 'batched.txt');
    const out = await LineWriter.open(file, 'w', 10);
    await out.write('قال أ\n');
    expect(readFileSync(file, 'utf8')).to.equal('');
    await out.write('بو عثمان\n');
    expect(readFileSync(file, 'utf8')).to.equal('قال أ\nبو عثمان\n');
    await out.write('x\n');
    await out.close({ sync: true });
    expect(readFileSync(file, 'utf8')).to.equal('قال أ\nبو عثمان\nx\n');
  });

  it('writes bytes after the text waiting before them, and appends with flags "a"', async () => {
    const file = path.join(tmp, 'appended.txt');
    writeFileSync(file, 'kept\n');
    const out = await LineWriter.open(file, 'a');
    await out.write('one\n');
    await out.writeBytes(Buffer.from('two\n'));
    await out.write('three\n');
    await out.close();
    expect(readFileSync(file, 'utf8')).to.equal('kept\none\ntwo\nthree\n');
  });

  it("'w' replaces what the file held", async () => {
    const file = path.join(tmp, 'replaced.txt');
    writeFileSync(file, 'old contents\n');
    const out = await LineWriter.open(file);
    await out.write('new\n');
    await out.close();
    expect(readFileSync(file, 'utf8')).to.equal('new\n');
  });
});
