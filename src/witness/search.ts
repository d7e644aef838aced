/**
 * Witness search: the passage of the indexed works that *is* an OCR line despite the OCR noise.
 *
 * Seed and extend, as BLAST does for sequences: every gram of the query's key looks up the sampled gram
 * starts of the works; a hit at key offset p for query offset i votes for the diagonal p − i (where the
 * query would start in the text), in buckets of 16. The best buckets (votes of a bucket plus its two
 * neighbours, non-adjacent) are verified by a fitting alignment of the whole query key against the text
 * around the diagonal (substringEditDistance of src/text/distance.ts: semi-global edit distance, free
 * leading and trailing text). score = 1 − edits / query key length. The aligned key span maps back to
 * the edition's lines, widened to whole words.
 */
import { substringEditDistance } from '../text/distance';
import { gramHash, type WitnessIndexData } from './build';
import { witnessKey } from './key';

const BUCKET_SHIFT = 4;

export interface WitnessSearchOptions {
  /** Diagonal buckets verified by alignment per query (default 16). */
  candidates?: number;
  /** Buckets with more postings than this are too common to vote (default 4000). */
  maxPostings?: number;
  /** Hits below this score are dropped (default 0). */
  minScore?: number;
}

/** One aligned span in the key text. */
export interface WitnessSpan {
  /** Work index. */
  work: number;
  /** Key offsets of the aligned span, [start, end). */
  start: number;
  end: number;
  distance: number;
  /** 1 − distance / query key length, in [0, 1]. */
  score: number;
}

/** Votes per diagonal bucket for the query key. */
function diagonalVotes(idx: WitnessIndexData, q: Uint16Array, maxPostings: number): Map<number, number> {
  const { n, tableBits } = idx.params;
  const votes = new Map<number, number>();
  for (let i = 0; i + n <= q.length; i++) {
    const h = gramHash(q, i, n, tableBits);
    const from = idx.bucketStart[h];
    const to = idx.bucketStart[h + 1];
    if (to - from > maxPostings) continue;
    for (let j = from; j < to; j++) {
      const b = (idx.postings[j] - i) >> BUCKET_SHIFT;
      votes.set(b, (votes.get(b) ?? 0) + 1);
    }
  }
  return votes;
}

/** The best non-adjacent buckets, by their votes plus their neighbours'. */
function topBuckets(votes: Map<number, number>, count: number): number[] {
  const scored: { b: number; v: number }[] = [];
  for (const [b, v] of votes) scored.push({ b, v: v + (votes.get(b - 1) ?? 0) + (votes.get(b + 1) ?? 0) });
  scored.sort((x, y) => y.v - x.v || x.b - y.b);
  const out: number[] = [];
  const taken = new Set<number>();
  for (const { b } of scored) {
    if (out.length >= count) break;
    if (taken.has(b) || taken.has(b - 1) || taken.has(b + 1)) continue;
    taken.add(b);
    out.push(b);
  }
  return out;
}

/** Work holding key offset p (binary search over the works' first lines). */
export function workAt(idx: WitnessIndexData, p: number): number {
  const line = lineAt(idx, p);
  return idx.lineWork[line];
}

/** Line whose key span holds offset p (the last line starting at or before p). */
export function lineAt(idx: WitnessIndexData, p: number): number {
  let lo = 0;
  let hi = idx.lineNo.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (idx.lineStart[mid] <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Key offsets [from, to) of a work's text. */
export function workBounds(idx: WitnessIndexData, w: number): [number, number] {
  const first = idx.works[w].firstLine;
  const next = w + 1 < idx.works.length ? idx.works[w + 1].firstLine : idx.lineNo.length;
  return [idx.lineStart[first], idx.lineStart[next]];
}

/** Aligned spans of a query key, best first, overlapping spans merged into the best one. */
export function searchKey(idx: WitnessIndexData, q: Uint16Array, k: number, opts: WitnessSearchOptions = {}): WitnessSpan[] {
  const m = q.length;
  if (m < idx.params.n || idx.lineNo.length === 0) return [];
  const votes = diagonalVotes(idx, q, opts.maxPostings ?? 4000);
  const slack = 8 + Math.ceil(m * 0.25);
  const spans: WitnessSpan[] = [];
  for (const b of topBuckets(votes, opts.candidates ?? 16)) {
    const diag = Math.max(0, b << BUCKET_SHIFT);
    const work = workAt(idx, Math.min(diag, idx.text.length - 1));
    const [ws, we] = workBounds(idx, work);
    const from = Math.max(ws, diag - slack);
    const to = Math.min(we, diag + (1 << BUCKET_SHIFT) + m + slack);
    if (to <= from) continue;
    const hit = substringEditDistance(q, idx.text.subarray(from, to));
    spans.push({ work, start: from + hit.start, end: from + hit.end, distance: hit.distance, score: Math.max(0, 1 - hit.distance / m) });
  }
  spans.sort((a, b) => b.score - a.score || a.start - b.start);
  const out: WitnessSpan[] = [];
  for (const s of spans) {
    if (s.score < (opts.minScore ?? 0)) continue;
    if (out.some((o) => o.start < s.end && s.start < o.end)) continue;
    out.push(s);
    if (out.length >= k) break;
  }
  return out;
}

/** searchKey on the witness key of an OCR line. */
export function searchText(idx: WitnessIndexData, query: string, k: number, opts: WitnessSearchOptions = {}): WitnessSpan[] {
  return searchKey(idx, witnessKey(query), k, opts);
}
