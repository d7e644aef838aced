/**
 * Text keys and lexical similarities for matching OCR lines against corpus sentences.
 *
 * OCR output and the corpus differ in exactly the places orthographic normalisation removes (diacritics,
 * alef/hamza seats, yaa/alef maqsura, taa marbuta) plus punctuation and brackets, so every lexical
 * comparison here runs on `matchKey`: Arabic letters and single spaces only. Similarities are in [0, 1].
 */
import { createHash } from 'node:crypto';
import { normalizeArabic, unifyHamzaSeats } from '../text/arabic';
import { substringEditDistance } from '../text/distance';
import { toCodePoints } from '../text/tokens';

export { substringEditDistance, type SubstringMatch } from '../text/distance';

const NON_LETTER = /[^\p{L}\s]+/gu;
const NON_WORD = /[^\p{L}\p{N}\s]+/gu;
const SPACES = /\s+/gu;

function unifyArabic(text: string): string {
  return unifyHamzaSeats(normalizeArabic(text));
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

/** Code points of a string as an Int32Array (astral characters count once): `toCodePoints` of src/text/tokens. */
export const codePoints = toCodePoints;

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
