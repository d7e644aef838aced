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

/**
 * Where an index sits in the whole witness text (src/witness/shards.ts): a shard's key offset 0 is `base` in the
 * text of one index over every work, its work 0 is work `workBase`; `counts` are that whole index's postings per
 * gram bucket (a gram too common there is too common in every shard). Offsets are JS numbers (exact to 2^53):
 * diagonals are computed by division, never by 32-bit shifts.
 */
export interface IndexFrame {
  base: number;
  workBase: number;
  counts?: Uint32Array;
}

const WHOLE: IndexFrame = { base: 0, workBase: 0 };
const BUCKET = 1 << BUCKET_SHIFT;

/** Votes per diagonal bucket (numbered in the whole text) for the query key. */
function diagonalVotes(idx: WitnessIndexData, q: Uint16Array, maxPostings: number, frame: IndexFrame): Map<number, number> {
  const { n, tableBits } = idx.params;
  const votes = new Map<number, number>();
  for (let i = 0; i + n <= q.length; i++) {
    const h = gramHash(q, i, n, tableBits);
    const from = idx.bucketStart[h];
    const to = idx.bucketStart[h + 1];
    if ((frame.counts ? frame.counts[h] : to - from) > maxPostings) continue;
    for (let j = from; j < to; j++) {
      const b = Math.floor((frame.base + idx.postings[j] - i) / BUCKET);
      votes.set(b, (votes.get(b) ?? 0) + 1);
    }
  }
  return votes;
}

/** A candidate diagonal bucket and its votes (its own plus its two neighbours'). */
export interface Bucket {
  b: number;
  v: number;
}

/** The order in which buckets are taken: most votes first, then the lower diagonal. */
export const bucketOrder = (x: Bucket, y: Bucket) => y.v - x.v || x.b - y.b;

/** The best non-adjacent buckets, by their votes plus their neighbours'. */
function topBuckets(votes: Map<number, number>, count: number): Bucket[] {
  const scored: Bucket[] = [];
  for (const [b, v] of votes) scored.push({ b, v: v + (votes.get(b - 1) ?? 0) + (votes.get(b + 1) ?? 0) });
  scored.sort(bucketOrder);
  const out: Bucket[] = [];
  const taken = new Set<number>();
  for (const x of scored) {
    if (out.length >= count) break;
    if (taken.has(x.b) || taken.has(x.b - 1) || taken.has(x.b + 1)) continue;
    taken.add(x.b);
    out.push(x);
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

/**
 * The candidate buckets of a query key in one index, each verified by alignment: spans in whole-text offsets and
 * work numbers (`frame`), with the bucket that proposed them. One index's search keeps them all; a sharded search
 * takes the best `candidates` buckets over every shard's (src/witness/sharded-search.ts).
 */
export function candidateSpans(
  idx: WitnessIndexData,
  q: Uint16Array,
  opts: WitnessSearchOptions = {},
  frame: IndexFrame = WHOLE,
): (WitnessSpan & { bucket: Bucket })[] {
  const m = q.length;
  if (m < idx.params.n || idx.lineNo.length === 0) return [];
  const votes = diagonalVotes(idx, q, opts.maxPostings ?? 4000, frame);
  const slack = 8 + Math.ceil(m * 0.25);
  const spans: (WitnessSpan & { bucket: Bucket })[] = [];
  for (const bucket of topBuckets(votes, opts.candidates ?? 16)) {
    const diag = Math.max(0, bucket.b * BUCKET - frame.base);
    const work = workAt(idx, Math.min(diag, idx.text.length - 1));
    const [ws, we] = workBounds(idx, work);
    const from = Math.max(ws, diag - slack);
    const to = Math.min(we, diag + BUCKET + m + slack);
    if (to <= from) continue;
    const hit = substringEditDistance(q, idx.text.subarray(from, to));
    const start = frame.base + from + hit.start;
    const end = frame.base + from + hit.end;
    spans.push({ work: frame.workBase + work, start, end, distance: hit.distance, score: Math.max(0, 1 - hit.distance / m), bucket });
  }
  return spans;
}

/** The best spans of verified candidates: by score, then position; overlapping spans merged into the best one. */
export function bestSpans(spans: readonly WitnessSpan[], k: number, minScore = 0): WitnessSpan[] {
  const sorted = [...spans].sort((a, b) => b.score - a.score || a.start - b.start);
  const out: WitnessSpan[] = [];
  for (const s of sorted) {
    if (s.score < minScore) continue;
    if (out.some((o) => o.start < s.end && s.start < o.end)) continue;
    out.push({ work: s.work, start: s.start, end: s.end, distance: s.distance, score: s.score });
    if (out.length >= k) break;
  }
  return out;
}

/** Aligned spans of a query key, best first, overlapping spans merged into the best one. */
export function searchKey(idx: WitnessIndexData, q: Uint16Array, k: number, opts: WitnessSearchOptions = {}): WitnessSpan[] {
  return bestSpans(candidateSpans(idx, q, opts), k, opts.minScore ?? 0);
}

/** searchKey on the witness key of an OCR line. */
export function searchText(idx: WitnessIndexData, query: string, k: number, opts: WitnessSearchOptions = {}): WitnessSpan[] {
  return searchKey(idx, witnessKey(query), k, opts);
}
