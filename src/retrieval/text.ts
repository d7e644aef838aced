/**
 * Text keys and lexical similarities for matching OCR lines against corpus sentences.
 *
 * OCR output and the corpus differ in exactly the places orthographic normalisation removes (diacritics,
 * alef/hamza seats, yaa/alef maqsura, taa marbuta) plus punctuation and brackets, so every lexical
 * comparison here runs on `matchKey`: Arabic letters and single spaces only. Similarities are in [0, 1].
 */
import { createHash } from 'node:crypto';
import { normalizeArabic } from '../../analysis/metrics';

const NON_LETTER = /[^\p{L}\s]+/gu;
const NON_WORD = /[^\p{L}\p{N}\s]+/gu;
const SPACES = /\s+/gu;

function unifyArabic(text: string): string {
  return normalizeArabic(text).replaceAll('\u0624', '\u0648').replaceAll('\u0626', '\u064a');
}

/**
 * Matching key: `normalizeArabic` (diacritics, tatweel, alef forms, ى→ي, ة→ه) plus hamza seats ؤ→و and
 * ئ→ي (editions and OCR disagree on them), lower-cased, with everything that is not a letter (digits,
 * punctuation, «», footnote numbers) replaced by a space, and spaces collapsed.
 */
export function matchKey(text: string): string {
  return unifyArabic(text).toLowerCase().replace(NON_LETTER, ' ').replace(SPACES, ' ').trim();
}

/** Text for duplicate detection: as matchKey but keeping digits (numbered items differ). NFKC first. */
export function dedupText(text: string): string {
  return unifyArabic(text.normalize('NFKC')).toLowerCase().replace(NON_WORD, ' ').replace(SPACES, ' ').trim();
}

/** SHA-256 (hex) of dedupText: two texts with the same digest are the same sentence for a reader. */
export function dedupDigest(text: string): string {
  return createHash('sha256').update(dedupText(text), 'utf8').digest('hex');
}

/** Code points of a string as an Int32Array (astral characters count once). */
export function codePoints(s: string): Int32Array {
  const out = new Int32Array(s.length);
  let n = 0;
  for (const ch of s) out[n++] = ch.codePointAt(0)!;
  return n === s.length ? out : out.slice(0, n);
}

/**
 * Character n-grams of a key, with each word padded by a space on both sides so word starts and ends
 * form their own grams (` ab`, `ab `): a split or merged word in the OCR still shares its inner grams.
 * Returns the grams with multiplicity, in order.
 */
export function charNgrams(key: string, n: number): string[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n-gram size must be a positive integer, got ${n}`);
  const out: string[] = [];
  for (const word of key.split(' ')) {
    if (!word) continue;
    const w = ` ${word} `;
    if (w.length <= n) {
      out.push(w);
      continue;
    }
    for (let i = 0; i + n <= w.length; i++) out.push(w.slice(i, i + n));
  }
  return out;
}

/** Multiset of grams → counts. */
export function gramCounts(grams: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const g of grams) m.set(g, (m.get(g) ?? 0) + 1);
  return m;
}

/**
 * Share of the query's n-grams (with multiplicity) that also occur in the candidate: 1 when the query is
 * contained in the candidate, whatever else the candidate holds (an OCR line is a fragment of a printed
 * line, a corpus unit may be longer or shorter).
 */
export function ngramContainment(queryKey: string, candidateKey: string, n = 3): number {
  const q = gramCounts(charNgrams(queryKey, n));
  if (q.size === 0) return 0;
  const c = gramCounts(charNgrams(candidateKey, n));
  let hit = 0;
  let total = 0;
  for (const [g, k] of q) {
    total += k;
    hit += Math.min(k, c.get(g) ?? 0);
  }
  return hit / total;
}

let rowA = new Int32Array(256);
let rowB = new Int32Array(256);
let startA = new Int32Array(256);
let startB = new Int32Array(256);

export interface SubstringMatch {
  /** Fewest edits turning `pattern` into some substring text[start, end). */
  distance: number;
  start: number;
  end: number;
}

/**
 * Semi-global (fitting) alignment: the edit distance between the whole `pattern` and the best-matching
 * substring of `text` (free leading and trailing text), with that substring's bounds. O(|p|·|t|) time,
 * O(|t|) memory; ties prefer the earliest end, then the longest substring.
 */
export function substringEditDistance(pattern: ArrayLike<number>, text: ArrayLike<number>): SubstringMatch {
  const m = pattern.length;
  const n = text.length;
  if (m === 0) return { distance: 0, start: 0, end: 0 };
  if (n === 0) return { distance: m, start: 0, end: 0 };
  if (rowA.length < n + 1) {
    const size = 2 * (n + 1);
    rowA = new Int32Array(size);
    rowB = new Int32Array(size);
    startA = new Int32Array(size);
    startB = new Int32Array(size);
  }
  let prev = rowA;
  let cur = rowB;
  let prevStart = startA;
  let curStart = startB;
  // Row 0: matching the empty pattern prefix costs nothing anywhere in the text.
  for (let j = 0; j <= n; j++) {
    prev[j] = 0;
    prevStart[j] = j;
  }
  for (let i = 1; i <= m; i++) {
    const a = pattern[i - 1];
    cur[0] = i;
    curStart[0] = 0;
    for (let j = 1; j <= n; j++) {
      // diagonal (match/substitute), up (pattern char deleted), left (text char inserted)
      let v = prev[j - 1] + (a === text[j - 1] ? 0 : 1);
      let s = prevStart[j - 1];
      const up = prev[j] + 1;
      if (up < v) {
        v = up;
        s = prevStart[j];
      }
      const left = cur[j - 1] + 1;
      if (left < v) {
        v = left;
        s = curStart[j - 1];
      }
      cur[j] = v;
      curStart[j] = s;
    }
    [prev, cur] = [cur, prev];
    [prevStart, curStart] = [curStart, prevStart];
  }
  let best = 0;
  for (let j = 1; j <= n; j++) {
    if (prev[j] < prev[best] || (prev[j] === prev[best] && best === 0)) best = j;
  }
  return { distance: prev[best], start: prevStart[best], end: best };
}

/**
 * 1 − (edits to fit the query into the candidate) / |query|, clamped to [0, 1]: how well the (shorter)
 * query reads as a noisy copy of some part of the candidate.
 */
export function substringSimilarity(queryKey: string, candidateKey: string): number {
  const q = codePoints(queryKey);
  if (q.length === 0) return 0;
  const { distance } = substringEditDistance(q, codePoints(candidateKey));
  return Math.max(0, 1 - distance / q.length);
}
