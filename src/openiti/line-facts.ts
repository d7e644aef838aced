/**
 * Facts about the line the cleaner (cleanLine or cleanLineBytes) judged last, in one shared object
 * (no object per line in the hot path): letter counts, marks, length, dedup-key hash and, for the bytes
 * path, where the clean text lies in the buffer.
 */
export const lineFacts = {
  arabic: 0,
  foreign: 0,
  /** The text may hold harakat or tatweel (if not, its dedup key is the text itself). */
  hasMarks: false,
  /** Length of the cleaned line in code points. */
  charLen: 0,
  /** cyrb53 of the cleaned line's dedup key, as hash53 gives it: [low 32 bits, high 21 bits]. */
  keyHash: new Uint32Array(2),
  /**
   * cleanLineBytes' FAST verdict: the clean text is bytes[byteStart, byteEnd), in the line's own buffer
   * or, for a line it cleaned, in a scratch buffer shared by all callers (valid until the next call).
   */
  bytes: new Uint8Array(0) as Uint8Array,
  byteStart: 0,
  byteEnd: 0,
};

/** cyrb53's final mix; stores the 53-bit result as two uint32 (a double would be boxed per line). */
export function finishKeyHash(h1: number, h2: number): void {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  lineFacts.keyHash[0] = h1;
  lineFacts.keyHash[1] = h2 & 0x1fffff;
}
