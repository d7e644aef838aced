/**
 * "Source in the corpus", the definition witness figures are stated for: a gold line's source is in a
 * corpus when at least 90 % of the line's character 5-grams occur somewhere in the source work's text
 * (all its versions together), both taken after NFC without diacritics (ARABIC_DIACRITICS), tatweel and
 * whitespace — no letter unification, punctuation kept. A line shorter than 5 such characters has no
 * grams and never qualifies.
 *
 * Grams are compared by a 32-bit hash (a sorted, deduplicated Uint32Array per work: lean enough for whole
 * chronicles); a false match needs a collision, about one in 4·10^9 per gram against a work's few million.
 */
import { removeDiacritics, removeTatweel } from '../text/arabic';

export const COVERAGE_GRAM = 5;
export const SOURCE_IN_CORPUS_MIN_COVERAGE = 0.9;

/** NFC, diacritics, tatweel and whitespace removed: the coverage profile. */
export function coverageText(text: string): string {
  return removeTatweel(removeDiacritics(text.normalize('NFC'))).replace(/\s+/gu, '');
}

function hashGram(s: string, i: number, n: number): number {
  let h = 0x811c9dc5;
  for (let j = 0; j < n; j++) h = Math.imul(h ^ s.charCodeAt(i + j), 0x01000193);
  return h >>> 0;
}

/** The sorted distinct gram hashes of texts (each text's grams stay within it). */
export function gramSet(texts: Iterable<string>, n = COVERAGE_GRAM): Uint32Array {
  let buf = new Uint32Array(1 << 16);
  let len = 0;
  for (const t of texts) {
    const s = coverageText(t);
    for (let i = 0; i + n <= s.length; i++) {
      if (len === buf.length) {
        const next = new Uint32Array(buf.length * 2);
        next.set(buf);
        buf = next;
      }
      buf[len++] = hashGram(s, i, n);
    }
  }
  const sorted = buf.subarray(0, len).sort();
  let w = 0;
  for (let i = 0; i < len; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[w++] = sorted[i];
  return sorted.slice(0, w);
}

function has(set: Uint32Array, h: number): boolean {
  let lo = 0;
  let hi = set.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (set[mid] === h) return true;
    if (set[mid] < h) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Share of the gold line's 5-grams found in the work's gram set; null when the line has no gram. */
export function gramCoverage(gold: string, workGrams: Uint32Array, n = COVERAGE_GRAM): number | null {
  const s = coverageText(gold);
  const total = s.length - n + 1;
  if (total <= 0) return null;
  let hit = 0;
  for (let i = 0; i < total; i++) if (has(workGrams, hashGram(s, i, n))) hit++;
  return hit / total;
}

/** The definition above. */
export function sourceInCorpus(gold: string, workGrams: Uint32Array): boolean {
  const c = gramCoverage(gold, workGrams);
  return c !== null && c >= SOURCE_IN_CORPUS_MIN_COVERAGE;
}
