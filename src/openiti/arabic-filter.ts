/** The "Arabic text" filter on a cleaned line (docs/openiti.md#arabic-text-test): enough Arabic letters, few foreign ones. */
import { letterCountsByScript } from './char-classes';

export interface ParseOptions {
  /** Minimum Arabic letters for a line to count as Arabic text (docs/openiti.md#arabic-text-test: 10). */
  minArabicLetters?: number;
  /**
   * Largest share of non-Arabic letters (Latin apparatus, HTML debris) among all letters of a kept line.
   * "Keep Arabic text only": a line that is mostly Latin is not Arabic text even with 10 Arabic letters.
   */
  maxForeignLetterRatio?: number;
}

export const DEFAULT_PARSE_OPTIONS: Required<ParseOptions> = { minArabicLetters: 10, maxForeignLetterRatio: 0.2 };

/** The "Arabic text" test on a cleaned line (docs/openiti.md#arabic-text-test). */
export function isArabicText(s: string, opts: ParseOptions = {}): boolean {
  const { arabic, foreign } = letterCountsByScript(s);
  return passesArabic(
    arabic,
    foreign,
    opts.minArabicLetters ?? DEFAULT_PARSE_OPTIONS.minArabicLetters,
    opts.maxForeignLetterRatio ?? DEFAULT_PARSE_OPTIONS.maxForeignLetterRatio,
  );
}

export function passesArabic(arabic: number, foreign: number, minLetters: number, maxForeign: number): boolean {
  return arabic >= minLetters && foreign <= maxForeign * (arabic + foreign);
}
