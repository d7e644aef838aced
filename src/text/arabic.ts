/**
 * Small Arabic-script helpers shared by the dataset loaders (and usable by the corpus parser).
 *
 * "Arabic letter" = a Unicode letter (\p{L}) in the Arabic script, which covers the basic block
 * (U+0621–U+064A), extended letters (ٱ, پ, ی …) and presentation forms, but not diacritics (harakat are
 * marks, \p{M}), Arabic-Indic digits (\p{Nd}), punctuation (، ؛ ؟) or the tatweel U+0640 (a letter
 * modifier used only for stretching, so it says nothing about the text being Arabic).
 */

const ARABIC_LETTER = /(?!\u0640)(?=\p{Script=Arabic})\p{L}/gu;
const ANY_LETTER = /\p{L}/gu;

/** Number of Arabic letters in `text` (see module comment for what counts). */
export function countArabicLetters(text: string): number {
  return text.match(ARABIC_LETTER)?.length ?? 0;
}

/** Number of letters of any script in `text`. */
export function countLetters(text: string): number {
  return text.match(ANY_LETTER)?.length ?? 0;
}

/** Share of the letters of `text` that are Arabic, in [0, 1]; 0 when the text has no letters at all. */
export function arabicShare(text: string): number {
  const letters = countLetters(text);
  return letters === 0 ? 0 : countArabicLetters(text) / letters;
}

/**
 * True when at least `minShare` of the letters are Arabic (default 0.5). Digits, punctuation and
 * diacritics are ignored, so "١٢٣" or "..." (no letters) is not Arabic text.
 */
export function isArabicText(text: string, minShare = 0.5): boolean {
  if (!(minShare >= 0 && minShare <= 1)) throw new RangeError(`isArabicText: minShare must be in [0, 1], got ${minShare}`);
  const letters = countLetters(text);
  if (letters === 0) return false;
  return countArabicLetters(text) / letters >= minShare;
}
