/**
 * Character classes of the OpenITI parser: one table lookup per UTF-16 code unit says whether it is an
 * Arabic or a foreign letter and which markers it may start (the hot loop of the whole build).
 */
import { HARAKAT_AND_TATWEEL } from '../text/arabic';

/**
 * Arabic *letters*: Unicode letters of the Arabic script except the tatweel (the same definition as
 * src/text/arabic.ts), so no digits, punctuation or diacritics (harakat are marks, not letters).
 */
const ARABIC_LETTER_RE = /^(?!\u0640)(?=\p{Script=Arabic})\p{L}$/u;
const LETTER_RE = /^\p{L}$/u;

export function isArabicLetter(c: number): boolean {
  return (CLASS[c & 0xffff] & C_ARABIC) !== 0;
}

export function isDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x0660 && c <= 0x0669) || (c >= 0x06f0 && c <= 0x06f9);
}

export function isSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

// One table lookup per character classifies it (the hot loop of the whole build).
export const C_ARABIC = 1;
export const C_FOREIGN = 2;
export const C_P = 1 << 2; // PageV markers
export const C_M = 1 << 3; // ms milestones
export const C_AT = 1 << 4; // @TAG@
export const C_LT = 1 << 5; // <html>
export const C_PAREN = 1 << 6; // (1) footnotes
export const C_PIPE = 1 << 7; // Qur'an surah|verse|
export const C_PCT = 1 << 8; // % hemistich separators
export const C_DOT = 1 << 9; // " ... " hemistich separator
export const C_INVIS = 1 << 10; // zero-width / bidi controls
export const C_WS = 1 << 11; // whitespace other than a plain space
export const C_SPACE = 1 << 12; // a plain space (only to reach the slow branch of the scan)
export const C_DBL = 1 << 13; // set by the scan: two spaces in a row
export const C_DOTS3 = 1 << 14; // set by the scan: "..."
export const C_MARK = 1 << 15; // harakat / tatweel: the dedup key must drop them
export const C_HIGH = 1 << 16; // high surrogate: a pair counts as one code point in char_len
export const C_REMOVALS = C_P | C_M | C_AT | C_LT | C_PAREN | C_INVIS;
export const C_ANYSPACE = C_SPACE | C_WS;
/** Anything that needs the general (allocating) path of cleanLine. */
export const C_SLOW = C_REMOVALS | C_PIPE | C_PCT | C_DOTS3 | C_WS | C_DBL;
export const CLASS = (() => {
  const t = new Uint32Array(65536);
  for (let c = 0; c < 65536; c++) {
    if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff) t[c] = C_HIGH;
      continue; // surrogate halves are not letters
    }
    const ch = String.fromCharCode(c);
    if (!LETTER_RE.test(ch)) {
      // not a letter
    } else if (ARABIC_LETTER_RE.test(ch)) t[c] |= C_ARABIC;
    else if (c !== 0x0640) t[c] |= C_FOREIGN;
    if (isSpace(c) && c !== 0x20) t[c] |= C_WS;
    if (
      c === 0xad ||
      c === 0x61c ||
      (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2060 && c <= 0x206f) ||
      c === 0xfeff
    )
      t[c] |= C_INVIS;
  }
  t[0x50] |= C_P;
  t[0x6d] |= C_M;
  t[0x40] |= C_AT;
  t[0x3c] |= C_LT;
  t[0x28] |= C_PAREN;
  t[0x7c] |= C_PIPE;
  t[0x25] |= C_PCT;
  t[0x2e] |= C_DOT;
  t[0x20] |= C_SPACE;
  for (const [lo, hi] of HARAKAT_AND_TATWEEL) for (let c = lo; c <= hi; c++) t[c] |= C_MARK; // dedupKey's set
  return t;
})();

export interface LetterCounts {
  arabic: number;
  /** Letters of other scripts (Latin mostly). */
  foreign: number;
}

/** Letters of `s` by script: Arabic and other (cf. countLetters in src/text/arabic.ts: all letters, one number). */
export function letterCountsByScript(s: string): LetterCounts {
  let arabic = 0;
  let foreign = 0;
  for (let i = 0; i < s.length; i++) {
    const v = CLASS[s.charCodeAt(i)];
    arabic += v & C_ARABIC;
    foreign += (v >>> 1) & 1;
  }
  return { arabic, foreign };
}

/** Length in Unicode code points (what Python's `len` gives; docs/openiti.md#character-length). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
