/**
 * Building the witness index: every line of every work, as witness keys (src/witness/key.ts), in one
 * typed array, and an inverted index of hashed character n-grams over it.
 *
 * Layout (all typed arrays, so the whole slice fits in a few hundred MB and saves as flat files):
 *   text        Uint16  the keys of all lines, a work's lines back to back, works separated by one 0 unit
 *   lineStart   Uint32  key offset of each line (lines numbered across works in order), plus the end
 *   lineNo      Uint32  physical line in the source file
 *   lineWork    Uint32  work of each line
 *   linePage / lineMs  Int32  index into `labels` of the line's page / milestone marker, -1 for none
 *   bucketStart Uint32  CSR offsets into `postings` per gram-hash bucket (2^tableBits + 1)
 *   postings    Uint32  key offsets where a gram starts, sampled every `stride` positions
 * A gram never spans two works (it would contain the 0 separator). Hash collisions only add votes to
 * wrong diagonals, which the alignment then rejects.
 */
import { keyWithOffsets } from './key';
import type { WitnessWork } from './works';

export interface WitnessParams {
  /** Gram length in key characters (default 5). */
  n: number;
  /** Index one gram start every `stride` key positions (default 1: every position; 2 halves the postings for about 1.5 points of recall@1 on the golden set). */
  stride: number;
  /** log2 of the hash table size (default: fit to the postings, 16..24). */
  tableBits: number;
}

export const DEFAULT_WITNESS_PARAMS: Readonly<Omit<WitnessParams, 'tableBits'>> = Object.freeze({ n: 5, stride: 1 });

export interface WitnessIndexData {
  params: WitnessParams;
  works: { uri: string; date: number | null; firstLine: number }[];
  labels: string[];
  text: Uint16Array;
  lineStart: Uint32Array;
  lineNo: Uint32Array;
  lineWork: Uint32Array;
  linePage: Int32Array;
  lineMs: Int32Array;
  bucketStart: Uint32Array;
  postings: Uint32Array;
}

/** Hash of the gram text[p, p+n) into [0, 2^bits). */
export function gramHash(text: ArrayLike<number>, p: number, n: number, bits: number): number {
  let h = 0x811c9dc5;
  for (let j = 0; j < n; j++) h = Math.imul(h ^ text[p + j], 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) >>> (32 - bits);
}

/** Whether text[p, p+n) holds no work separator. */
export function gramInside(text: Uint16Array, p: number, n: number): boolean {
  for (let j = 0; j < n; j++) if (text[p + j] === 0) return false;
  return true;
}

/**
 * Key offsets (`lineStart`, `postings`, `bucketStart`) are Uint32: one index holds at most 2^32 − 1 key positions
 * (about 4.3 G key characters). A layout that would pass it stops with a one-line error instead of wrapping
 * offsets around — a silent wrap would point hits at other lines.
 */
export const MAX_KEY_POSITIONS = 0xffffffff;

class GrowableU16 {
  buf = new Uint16Array(1 << 16);
  length = 0;
  constructor(private readonly limit: number) {}
  push(src: Uint16Array): void {
    if (this.length + src.length + 1 > this.limit)
      throw new RangeError(
        `witness index text would pass ${this.limit.toLocaleString('en-US')} key positions (32-bit offsets) — index fewer works per index`,
      );
    while (this.length + src.length + 1 > this.buf.length) {
      const next = new Uint16Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf.set(src, this.length);
    this.length += src.length;
  }
  pushUnit(u: number): void {
    this.push(Uint16Array.of(u));
  }
}

type Layout = Omit<WitnessIndexData, 'params' | 'bucketStart' | 'postings'>;

/**
 * The line tables and key text (step 1 of a build), one work at a time so a whole slice streams through:
 * each line's NFC text goes to `onText` (kept in memory or written to the index's lines file).
 */
export class WitnessLayoutBuilder {
  private readonly text: GrowableU16;
  private readonly labels: string[] = [];
  private readonly labelOf = new Map<string, number>();
  private readonly starts: number[] = [];
  private readonly lineNo: number[] = [];
  private readonly lineWork: number[] = [];
  private readonly page: number[] = [];
  private readonly ms: number[] = [];
  private readonly works: WitnessIndexData['works'] = [];

  constructor(
    private readonly onText: (nfc: string) => void,
    maxPositions = MAX_KEY_POSITIONS,
  ) {
    this.text = new GrowableU16(maxPositions);
  }

  private label(s: string | null): number {
    if (s === null) return -1;
    let i = this.labelOf.get(s);
    if (i === undefined) this.labelOf.set(s, (i = this.labels.push(s) - 1));
    return i;
  }

  add(w: WitnessWork): void {
    const wi = this.works.length;
    if (wi > 0) this.text.pushUnit(0);
    this.works.push({ uri: w.uri, date: w.date, firstLine: this.starts.length });
    for (const l of w.lines) {
      const { key, nfc } = keyWithOffsets(l.text);
      this.starts.push(this.text.length);
      this.text.push(key);
      this.lineNo.push(l.line);
      this.lineWork.push(wi);
      this.page.push(this.label(l.page));
      this.ms.push(this.label(l.ms));
      this.onText(nfc);
    }
  }

  finish(): Layout {
    return {
      works: this.works,
      labels: this.labels,
      // A view, not a copy: the builder is done with its buffer, and a copy would double the text at its peak.
      text: this.text.buf.subarray(0, this.text.length),
      lineStart: Uint32Array.from([...this.starts, this.text.length]),
      lineNo: Uint32Array.from(this.lineNo),
      lineWork: Uint32Array.from(this.lineWork),
      linePage: Int32Array.from(this.page),
      lineMs: Int32Array.from(this.ms),
    };
  }
}

/** Table size: about one bucket per two postings, within 2^16..2^24. */
export function defaultTableBits(textLength: number, stride: number): number {
  const postings = Math.max(1, Math.ceil(textLength / stride));
  return Math.min(24, Math.max(16, Math.ceil(Math.log2(postings)) - 1));
}

/** The first position of a text at whole-text offset `base` that a `stride` sampling indexes. */
export function firstSampled(base: number, stride: number): number {
  return (stride - (base % stride)) % stride;
}

/**
 * The CSR inverted index of sampled gram starts (step 2 of a build): two passes, count then fill. `base`: the
 * text's offset in the whole witness text (a shard's), so a shard samples the positions one index would.
 */
export function buildPostings(text: Uint16Array, params: WitnessParams, base = 0): { bucketStart: Uint32Array; postings: Uint32Array } {
  const { n, stride, tableBits } = params;
  const size = 1 << tableBits;
  const counts = new Uint32Array(size + 1);
  const first = firstSampled(base, stride);
  let total = 0;
  for (let p = first; p + n <= text.length; p += stride) {
    if (!gramInside(text, p, n)) continue;
    counts[gramHash(text, p, n, tableBits) + 1]++;
    total++;
  }
  for (let b = 1; b <= size; b++) counts[b] += counts[b - 1];
  const postings = new Uint32Array(total);
  const fill = counts.slice(0, size);
  for (let p = first; p + n <= text.length; p += stride) {
    if (!gramInside(text, p, n)) continue;
    postings[fill[gramHash(text, p, n, tableBits)]++] = p;
  }
  return { bucketStart: counts, postings };
}

/** The postings of a finished layout, with the parameters checked and the table size chosen. */
export function indexLayout(layout: Layout, params: Partial<WitnessParams> = {}): WitnessIndexData {
  const n = params.n ?? DEFAULT_WITNESS_PARAMS.n;
  const stride = params.stride ?? DEFAULT_WITNESS_PARAMS.stride;
  if (!(Number.isInteger(n) && n >= 2 && n <= 16)) throw new RangeError(`witness n must be an integer in 2..16, got ${n}`);
  if (!(Number.isInteger(stride) && stride >= 1)) throw new RangeError(`witness stride must be a positive integer, got ${stride}`);
  const tableBits = params.tableBits ?? defaultTableBits(layout.text.length, stride);
  const full: WitnessParams = { n, stride, tableBits };
  return { params: full, ...layout, ...buildPostings(layout.text, full) };
}

/** Build the whole index in memory; `texts` are the lines' NFC texts (what hits quote). */
export function buildWitnessIndex(
  works: readonly WitnessWork[],
  params: Partial<WitnessParams> = {},
): { data: WitnessIndexData; texts: string[] } {
  const texts: string[] = [];
  const b = new WitnessLayoutBuilder((t) => texts.push(t));
  for (const w of works) b.add(w);
  return { data: indexLayout(b.finish(), params), texts };
}
