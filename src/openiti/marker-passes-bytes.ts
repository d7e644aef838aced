/**
 * The replacements of cleanLine's general path (line-markers.ts, clean-line.ts) as passes over UTF-8
 * bytes: each pass finds exactly the matches its regex finds, left to right without overlap, in place:
 * it rewrites s[from, to) (a pass never writes ahead of what it has read) and returns the new end. The
 * bytes before `from` stay and are the text's start (a milestone's `\b` looks at the last of them);
 * callers start a pass where no match can begin earlier. Every pattern
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
 * Every marker that starts with byte `first` and ends where `markerEnd` says (-1: not a marker there)
 * replaced by one space, in s[from, to); returns the new end.
 */
function replaceMarkers(
  s: Uint8Array,
  from: number,
  to: number,
  first: number,
  markerEnd: (s: Uint8Array, at: number, to: number) => number,
): number {
  let w = from;
  for (let r = from; r < to;) {
    const c = s[r];
    const e = c === first ? markerEnd(s, r, to) : -1;
    if (e === -1) {
      s[w++] = c;
      r++;
    } else {
      s[w++] = 0x20;
      r = e;
    }
  }
  return w;
}

/** `s.replace(PAGE_ANYWHERE, ' ')` on s[from, to); returns the new end. */
export function replacePageMarkers(s: Uint8Array, from: number, to: number): number {
  return replaceMarkers(s, from, to, 0x50, pageMarkerEnd);
}

/** `s.replace(MILESTONE, ' ')` (`\bms\d+\b`) on s[from, to); returns the new end. */
export function replaceMilestones(s: Uint8Array, from: number, to: number): number {
  let w = from;
  let prevWord = from > 0 && isWordByte(s[from - 1]); // \b looks at the input character before the match
  for (let r = from; r < to;) {
    const c = s[r];
    if (c === 0x6d && !prevWord && r + 2 < to && s[r + 1] === 0x73 && isAsciiDigit(s[r + 2])) {
      const e = digitsEnd(s, r + 3, to);
      if (e === to || !isWordByte(s[e])) {
        s[w++] = 0x20;
        r = e;
        prevWord = true; // a digit
        continue;
      }
    }
    s[w++] = c;
    r++;
    prevWord = isWordByte(c);
  }
  return w;
}

/** `s.replace(FOOTNOTE, ' ')` on s[from, to); returns the new end. */
export function replaceFootnotes(s: Uint8Array, from: number, to: number): number {
  return replaceMarkers(s, from, to, 0x28, footnoteEnd);
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

/** `s.replace(HEMISTICH_PERCENT, ' ')` (`%~%|%`) on s[from, to); returns the new end. */
export function replacePercents(s: Uint8Array, from: number, to: number): number {
  let w = from;
  for (let r = from; r < to;) {
    const c = s[r];
    if (c === 0x25) {
      s[w++] = 0x20;
      r += r + 2 < to && s[r + 1] === 0x7e && s[r + 2] === 0x25 ? 3 : 1;
    } else {
      s[w++] = c;
      r++;
    }
  }
  return w;
}

/** `s.replace(HEMISTICH_DOTS, ' ')` (` ... `) on s[from, to); returns the new end. */
export function replaceSpacedDots(s: Uint8Array, from: number, to: number): number {
  let w = from;
  for (let r = from; r < to;) {
    const c = s[r];
    if (c === 0x20 && r + 4 < to && s[r + 1] === 0x2e && s[r + 2] === 0x2e && s[r + 3] === 0x2e && s[r + 4] === 0x20) {
      s[w++] = 0x20;
      r += 5;
    } else {
      s[w++] = c;
      r++;
    }
  }
  return w;
}
