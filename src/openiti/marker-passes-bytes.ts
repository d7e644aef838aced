/**
 * The replacements of cleanLine's general path (line-markers.ts, clean-line.ts) as passes over UTF-8
 * bytes: each pass finds exactly the matches its regex finds, left to right without overlap, and writes
 * the result to `dst` (which may be `src`: a pass never writes ahead of what it has read). Every pattern
 * is ASCII apart from `¬` and the Arabic-Indic digits, which are matched on their bytes; `\s` and `\d`
 * meet only ASCII here, because a line with other whitespace never reaches these passes.
 */
import { isAsciiDigit, isIndicDigitEndingAt } from './line-bytes';

/** `\w` of a JavaScript regex without the `u` and `i` flags: ASCII letters, digits and `_`. */
function isWordByte(c: number): boolean {
  return isAsciiDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) || c === 0x5f;
}

function isAsciiLetter(c: number): boolean {
  return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
}

/** Past the last of the ASCII digits from s[i] (i itself when there are none), within s[.., to). */
function digitsEnd(s: Uint8Array, i: number, to: number): number {
  while (i < to && isAsciiDigit(s[i])) i++;
  return i;
}

/** End of a match of PAGE_ANYWHERE (`PageV\d+P\d+`) starting at s[i], or -1. */
function pageMarkerEnd(s: Uint8Array, i: number, to: number): number {
  if (i + 7 >= to || s[i + 1] !== 0x61 || s[i + 2] !== 0x67 || s[i + 3] !== 0x65 || s[i + 4] !== 0x56) return -1; // (P)ageV
  const p = digitsEnd(s, i + 5, to);
  if (p === i + 5 || p >= to || s[p] !== 0x50) return -1;
  const e = digitsEnd(s, p + 1, to);
  return e === p + 1 ? -1 : e;
}

/** End of a match of FOOTNOTE (`\(\s*¬?[0-9٠-٩۰-۹]+\s*\)|\([a-zA-Z]\)`) starting at s[i] (a `(`), or -1. */
function footnoteEnd(s: Uint8Array, i: number, to: number): number {
  let j = i + 1;
  if (j + 1 < to && isAsciiLetter(s[j]) && s[j + 1] === 0x29) return j + 2;
  while (j < to && s[j] === 0x20) j++;
  if (j + 1 < to && s[j] === 0xc2 && s[j + 1] === 0xac) j += 2; // ¬
  const digits = j;
  for (;;) {
    if (j < to && isAsciiDigit(s[j])) j++;
    else if (j + 1 < to && isIndicDigitEndingAt(s, j + 1)) j += 2;
    else break;
  }
  if (j === digits) return -1;
  while (j < to && s[j] === 0x20) j++;
  return j < to && s[j] === 0x29 ? j + 1 : -1;
}

/**
 * Every marker that starts with byte `first` and ends where `markerEnd` says (-1: not a marker there) replaced by
 * one space, src[from, to) into dst; returns the result's length.
 */
function replaceMarkers(
  src: Uint8Array,
  from: number,
  to: number,
  dst: Uint8Array,
  first: number,
  markerEnd: (s: Uint8Array, at: number, to: number) => number,
): number {
  let w = 0;
  for (let r = from; r < to;) {
    const c = src[r];
    const e = c === first ? markerEnd(src, r, to) : -1;
    if (e === -1) {
      dst[w++] = c;
      r++;
    } else {
      dst[w++] = 0x20;
      r = e;
    }
  }
  return w;
}

/** `s.replace(PAGE_ANYWHERE, ' ')` on src[from, to) into dst; returns the result's length. */
export function replacePageMarkers(src: Uint8Array, from: number, to: number, dst: Uint8Array): number {
  return replaceMarkers(src, from, to, dst, 0x50, pageMarkerEnd);
}

/** `s.replace(MILESTONE, ' ')` (`\bms\d+\b`) on src[from, to) into dst; returns the result's length. */
export function replaceMilestones(src: Uint8Array, from: number, to: number, dst: Uint8Array): number {
  let w = 0;
  let prevWord = false; // \b looks at the input character before the match
  for (let r = from; r < to;) {
    const c = src[r];
    if (c === 0x6d && !prevWord && r + 2 < to && src[r + 1] === 0x73 && isAsciiDigit(src[r + 2])) {
      const e = digitsEnd(src, r + 3, to);
      if (e === to || !isWordByte(src[e])) {
        dst[w++] = 0x20;
        r = e;
        prevWord = true; // a digit
        continue;
      }
    }
    dst[w++] = c;
    r++;
    prevWord = isWordByte(c);
  }
  return w;
}

/** `s.replace(FOOTNOTE, ' ')` on src[from, to) into dst; returns the result's length. */
export function replaceFootnotes(src: Uint8Array, from: number, to: number, dst: Uint8Array): number {
  return replaceMarkers(src, from, to, dst, 0x28, footnoteEnd);
}

/**
 * Where the text starts once a Qur'an verse prefix goes: cleanLine's `s.trimStart().replace(QURAN_PREFIX, '')`
 * (`^\d+\|\d+\|\s*`), kept only when it matched; `from` when it does not.
 */
export function quranPrefixEnd(s: Uint8Array, from: number, to: number): number {
  let i = from;
  while (i < to && s[i] === 0x20) i++;
  const a = digitsEnd(s, i, to);
  if (a === i || a >= to || s[a] !== 0x7c) return from;
  const b = digitsEnd(s, a + 1, to);
  if (b === a + 1 || b >= to || s[b] !== 0x7c) return from;
  let e = b + 1;
  while (e < to && s[e] === 0x20) e++;
  return e;
}

/** `s.replace(HEMISTICH_PERCENT, ' ')` (`%~%|%`) on src[from, to) into dst; returns the result's length. */
export function replacePercents(src: Uint8Array, from: number, to: number, dst: Uint8Array): number {
  let w = 0;
  for (let r = from; r < to;) {
    const c = src[r];
    if (c === 0x25) {
      dst[w++] = 0x20;
      r += r + 2 < to && src[r + 1] === 0x7e && src[r + 2] === 0x25 ? 3 : 1;
    } else {
      dst[w++] = c;
      r++;
    }
  }
  return w;
}

/** `s.replace(HEMISTICH_DOTS, ' ')` (` ... `) on src[from, to) into dst; returns the result's length. */
export function replaceSpacedDots(src: Uint8Array, from: number, to: number, dst: Uint8Array): number {
  let w = 0;
  for (let r = from; r < to;) {
    const c = src[r];
    if (c === 0x20 && r + 4 < to && src[r + 1] === 0x2e && src[r + 2] === 0x2e && src[r + 3] === 0x2e && src[r + 4] === 0x20) {
      dst[w++] = 0x20;
      r += 5;
    } else {
      dst[w++] = c;
      r++;
    }
  }
  return w;
}
