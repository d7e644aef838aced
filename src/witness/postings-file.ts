/**
 * A shard's postings written straight to `postings.u32` in bounded memory (docs/witness-shards.md#memory). The
 * file holds the bytes `buildPostings` would (bucket by bucket, each bucket's positions ascending), but the
 * postings are never all in memory: after one pass that counts the grams per bucket, the buckets are cut into
 * ranges of at most `chunkEntries` postings (a bucket larger than that is a range of its own), and one more pass
 * over the text per range fills that range's postings and appends them to the file. A shard of 100 M key letters
 * then holds its text (2 bytes a letter), the bucket offsets and one range (64 MB by default) instead of
 * 4 more bytes a letter for the postings — at the cost of hashing the text once per range.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { firstSampled, gramHash, gramInside, type WitnessParams } from './build';

/** Postings per range: 16 M (64 MB). */
export const POSTINGS_CHUNK = 1 << 24;

/**
 * Count the sampled grams of `text` per bucket (CSR offsets, 2^tableBits + 1), then write its postings to `file`
 * range by range. `base`: the text's offset in the whole witness text, so the sampling is one index's.
 */
export function writePostingsFile(
  text: Uint16Array,
  params: WitnessParams,
  base: number,
  file: string,
  chunkEntries = POSTINGS_CHUNK,
): { bucketStart: Uint32Array; postings: number } {
  const { n, stride, tableBits } = params;
  const size = 1 << tableBits;
  const first = firstSampled(base, stride);
  const bucketStart = new Uint32Array(size + 1);
  for (let p = first; p + n <= text.length; p += stride) if (gramInside(text, p, n)) bucketStart[gramHash(text, p, n, tableBits) + 1]++;
  for (let b = 1; b <= size; b++) bucketStart[b] += bucketStart[b - 1];
  const total = bucketStart[size];
  const fd = openSync(file, 'w');
  try {
    let chunk = new Uint32Array(0);
    for (let lo = 0; lo < size;) {
      let hi = lo + 1;
      while (hi < size && bucketStart[hi + 1] - bucketStart[lo] <= chunkEntries) hi++;
      const entries = bucketStart[hi] - bucketStart[lo];
      if (entries > 0) {
        if (chunk.length < entries) chunk = new Uint32Array(Math.max(entries, Math.min(chunkEntries, total)));
        fillRange(text, params, first, bucketStart, lo, hi, chunk);
        writeSync(fd, new Uint8Array(chunk.buffer, 0, entries * 4));
      }
      lo = hi;
    }
  } finally {
    closeSync(fd);
  }
  return { bucketStart, postings: total };
}

/** The postings of buckets [lo, hi) into `out`, from its start (each bucket's slots from its CSR offset). */
function fillRange(
  text: Uint16Array,
  { n, stride, tableBits }: WitnessParams,
  first: number,
  bucketStart: Uint32Array,
  lo: number,
  hi: number,
  out: Uint32Array,
): void {
  const origin = bucketStart[lo];
  const fill = bucketStart.slice(lo, hi);
  for (let p = first; p + n <= text.length; p += stride) {
    if (!gramInside(text, p, n)) continue;
    const h = gramHash(text, p, n, tableBits);
    if (h >= lo && h < hi) out[fill[h - lo]++ - origin] = p;
  }
}
