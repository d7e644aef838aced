/**
 * OCR CER / WER of every OCR_GS line (5 books, 5,092 lines), per book and pooled, under the scoring before
 * canonical text (code points of the stored text, trimmed only as the data README computes it, and trimmed with
 * whitespace runs collapsed) and under each normalisation profile (src/text/profiles.ts: nfc — the primary —,
 * no_diacritics, graphemes). Corpus rates: summed edits / summed gold length.
 *
 *   SHARED_DATA=/path/to/shared/data npx tsx bench/normalization.ts
 */
import { existsSync } from 'node:fs';
import { levenshtein, scoreDistances, type DistanceScore } from '../src/text/distance';
import { BUILTIN_PROFILES } from '../src/text/profiles';
import { toCodePoints, toWords, wordIds } from '../src/text/tokens';
import { OCR_GS_ROOT } from '../test/helpers/shared-data';
import { loadOcrGsLines } from '../test/helpers/ocr-gs-lines';

/** The scoring without NFC: code points of the trimmed (and optionally collapsed) stored text. */
function withoutNfc(ref: string, hyp: string, collapse: boolean): DistanceScore {
  const prep = (s: string) => (collapse ? s.trim().replace(/\s+/gu, ' ') : s.trim());
  const r = prep(ref);
  const h = prep(hyp);
  const rc = toCodePoints(r);
  const rw = toWords(r);
  const [ri, hi] = wordIds(rw, toWords(h));
  return { charEdits: levenshtein(rc, toCodePoints(h)), refChars: rc.length, wordEdits: levenshtein(ri, hi), refWords: rw.length };
}

const SCORINGS: Record<string, (ref: string, hyp: string) => DistanceScore> = {
  'before: trim only, no NFC (data README)': (r, h) => withoutNfc(r, h, false),
  'before: trim + collapse, no NFC (old default)': (r, h) => withoutNfc(r, h, true),
  'nfc (primary)': (r, h) => scoreDistances(r, h),
  no_diacritics: (r, h) => scoreDistances(r, h, { profile: BUILTIN_PROFILES.no_diacritics }),
  graphemes: (r, h) => scoreDistances(r, h, { profile: BUILTIN_PROFILES.graphemes }),
};

function main(): void {
  if (!existsSync(OCR_GS_ROOT)) throw new Error(`no OCR_GS data at ${OCR_GS_ROOT} (set SHARED_DATA)`);
  const lines = loadOcrGsLines(OCR_GS_ROOT);
  const books = [...new Set(lines.map((l) => l.book))];
  console.log(`${lines.length} OCR_GS lines; OCR text against gold; CER / WER in %\n`);
  console.log(`| scoring | ${books.join(' | ')} | pooled |`);
  console.log(`|---|${books.map(() => '---:').join('|')}|---:|`);
  for (const [name, score] of Object.entries(SCORINGS)) {
    const sums = new Map<string, number[]>([...books, 'pooled'].map((b) => [b, [0, 0, 0, 0]]));
    for (const l of lines) {
      const d = score(l.gt, l.ocr);
      for (const k of [l.book, 'pooled']) {
        const s = sums.get(k)!;
        s[0] += d.charEdits;
        s[1] += d.refChars;
        s[2] += d.wordEdits;
        s[3] += d.refWords;
      }
    }
    const cell = (s: number[]) => `${((100 * s[0]) / s[1]).toFixed(2)} / ${((100 * s[2]) / s[3]).toFixed(2)}`;
    console.log(`| ${name} | ${[...books, 'pooled'].map((b) => cell(sums.get(b)!)).join(' | ')} |`);
  }
}

main();
