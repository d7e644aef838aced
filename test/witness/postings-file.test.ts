/**
 * A shard's postings written range by range (src/witness/postings-file.ts) are the bytes the in-memory build
 * writes (src/witness/build.ts buildPostings): ranges far smaller than the postings (so a run takes dozens of
 * ranges, and some buckets are larger than a range on their own), a stride with a shard base that is not a
 * multiple of it, work separators inside the text.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildPostings, type WitnessParams } from '../../src/witness/build';
import { writePostingsFile } from '../../src/witness/postings-file';

/** A text of Arabic letters from a small alphabet (so grams repeat and buckets fill unevenly), 0 between works. */
function text(length: number, seed: number): Uint16Array {
  const t = new Uint16Array(length);
  let s = seed;
  for (let i = 0; i < length; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    t[i] = i % 997 === 996 ? 0 : 0x0628 + (s % 7);
  }
  return t;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'postings-file-'));

describe('witness postings written range by range', () => {
  for (const [stride, base, chunk] of [
    [1, 0, 500],
    [1, 12345, 37],
    [3, 1000001, 64],
    [2, 7, 1 << 24],
  ] as const) {
    it(`stride ${stride}, base ${base}, ranges of ${chunk} postings: the bytes of the in-memory build`, () => {
      const t = text(20000, stride * 31 + base);
      const params: WitnessParams = { n: 5, stride, tableBits: 10 };
      const expected = buildPostings(t, params, base);
      const file = path.join(dir, `postings-${stride}-${base}-${chunk}.u32`);
      const written = writePostingsFile(t, params, base, file, chunk);
      expect(written.postings).to.equal(expected.postings.length);
      expect(Buffer.from(written.bucketStart.buffer).equals(Buffer.from(expected.bucketStart.buffer))).to.equal(true);
      expect(readFileSync(file).equals(Buffer.from(expected.postings.buffer)), 'postings.u32 bytes').to.equal(true);
    });
  }

  it('a bucket larger than a range is written whole', () => {
    // One gram repeated: every posting falls in one bucket, 50 times the range.
    const t = new Uint16Array(5000).fill(0x0628);
    const params: WitnessParams = { n: 5, stride: 1, tableBits: 8 };
    const file = path.join(dir, 'one-bucket.u32');
    writePostingsFile(t, params, 0, file, 100);
    expect(readFileSync(file).equals(Buffer.from(buildPostings(t, params).postings.buffer))).to.equal(true);
  });
});
