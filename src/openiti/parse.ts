/**
 * OpenITI text parsing (docs/openiti.md#parsing-rules, plus the variants seen in the real files, see
 * ../shared/data/README.md): header skipping, content-line extraction, marker stripping and the
 * "Arabic text" filter. Each extracted physical line is one corpus unit (docs/openiti.md#parsing-rules: no sentence
 * splitting), so `~~` continuation lines are units of their own, as the parsing rules say.
 *
 * Speed matters (the full OpenITI is 21 GB): one table-driven pass over each line counts letters and
 * notes which markers may occur; a regex runs only when that pass (and a cheap check) says it can match.
 * The same pass yields what a build needs next (length in code points, hash of the dedup key). A build
 * reads UTF-8 bytes: the common line is judged on its bytes (cleanLineBytes) and decoded only if a
 * caller wants its text; any other line is decoded and goes through cleanLine.
 */
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { HARAKAT_AND_TATWEEL } from '../text/arabic';

export const OPENITI_MAGIC = '######OpenITI#';
export const HEADER_END = '#META#Header#End#';

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

// --- character classes -------------------------------------------------------------------------

/**
 * Arabic *letters*: Unicode letters of the Arabic script except the tatweel (the same definition as
 * src/text/arabic.ts), so no digits, punctuation or diacritics (harakat are marks, not letters).
 */
const ARABIC_LETTER_RE = /^(?!\u0640)(?=\p{Script=Arabic})\p{L}$/u;
const LETTER_RE = /^\p{L}$/u;

export function isArabicLetter(c: number): boolean {
  return (CLASS[c & 0xffff] & C_ARABIC) !== 0;
}

function isDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x0660 && c <= 0x0669) || (c >= 0x06f0 && c <= 0x06f9);
}

function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

// One table lookup per character classifies it (the hot loop of the whole build).
const C_ARABIC = 1;
const C_FOREIGN = 2;
const C_P = 1 << 2; // PageV markers
const C_M = 1 << 3; // ms milestones
const C_AT = 1 << 4; // @TAG@
const C_LT = 1 << 5; // <html>
const C_PAREN = 1 << 6; // (1) footnotes
const C_PIPE = 1 << 7; // Qur'an surah|verse|
const C_PCT = 1 << 8; // % hemistich separators
const C_DOT = 1 << 9; // " ... " hemistich separator
const C_INVIS = 1 << 10; // zero-width / bidi controls
const C_WS = 1 << 11; // whitespace other than a plain space
const C_SPACE = 1 << 12; // a plain space (only to reach the slow branch of the scan)
const C_DBL = 1 << 13; // set by the scan: two spaces in a row
const C_DOTS3 = 1 << 14; // set by the scan: "..."
const C_MARK = 1 << 15; // harakat / tatweel: the dedup key must drop them
const C_HIGH = 1 << 16; // high surrogate: a pair counts as one code point in char_len
const C_REMOVALS = C_P | C_M | C_AT | C_LT | C_PAREN | C_INVIS;
const C_ANYSPACE = C_SPACE | C_WS;
/** Anything that needs the general (allocating) path of cleanLine. */
const C_SLOW = C_REMOVALS | C_PIPE | C_PCT | C_DOTS3 | C_WS | C_DBL;
const CLASS = (() => {
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
    if (c === 0xad || c === 0x61c || (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c === 0xfeff) t[c] |= C_INVIS;
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

// --- line cleaning -----------------------------------------------------------------------------

const PAGE_AT_START = /^PageV\d+P\d+/;
const PAGE_ANYWHERE = /PageV\d+P\d+/g;
const MILESTONE = /\bms\d+\b/g;
/** OpenITI inline tags: @QUR@039, @MATN@, @QB@, @QE@, @NUM@, @HAD034. */
const TAG = /@[A-Z]+\d*@?\d*/g;
const HTML_TAG = /<[^<>]*>/g;
/** Footnote/apparatus references: (1), (¬1), (١), (a), (g). */
const FOOTNOTE = /\(\s*¬?[0-9\u0660-\u0669\u06f0-\u06f9]+\s*\)|\([a-zA-Z]\)/g;
/** Zero-width and bidi control characters (typographic, invisible, they break dedup). */
const INVISIBLE = /[\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;
/** Qur'an mARkdown verse prefix `surah|verse|`. */
const QURAN_PREFIX = /^\d+\|\d+\|\s*/;
/** `%~%`, then any other `%` (one pass: the same matches as replacing %~% first, then %). */
const HEMISTICH_PERCENT = /%~%|%/g;
const HEMISTICH_DOTS = / \.\.\. /g;
const WHITESPACE = /\s+/g;
const SPACES = / {2,}/g;

/**
 * End index after stripping a trailing verse/line number (`\s+\d+\s*$`, docs/openiti.md#parsing-rules; Unicode digits as
 * Python's `\d`) from line[start, end).
 */
function trailingNumberEnd(s: string, start: number, end: number): number {
  let i = end - 1;
  while (i >= start && isSpace(s.charCodeAt(i))) i--;
  const lastDigit = i;
  while (i >= start && isDigit(s.charCodeAt(i))) i--;
  if (i === lastDigit || i < start || !isSpace(s.charCodeAt(i))) return end;
  while (i >= start && isSpace(s.charCodeAt(i))) i--;
  return i + 1;
}

/** Does `needle` occur directly followed by a digit? */
function followedByDigit(s: string, needle: string): boolean {
  for (let i = s.indexOf(needle); i !== -1; i = s.indexOf(needle, i + 1)) {
    const c = s.charCodeAt(i + needle.length);
    if (c >= 0x30 && c <= 0x39) return true;
  }
  return false;
}

/** `@` followed by an uppercase letter (an OpenITI tag). */
function hasTag(s: string): boolean {
  for (let i = s.indexOf('@'); i !== -1; i = s.indexOf('@', i + 1)) {
    const c = s.charCodeAt(i + 1);
    if (c >= 0x41 && c <= 0x5a) return true;
  }
  return false;
}

/** `(` starting a footnote reference: (1), ( 1 ), (¬1), (١), (a). */
function hasFootnote(s: string): boolean {
  for (let i = s.indexOf('('); i !== -1; i = s.indexOf('(', i + 1)) {
    let j = i + 1;
    let c = s.charCodeAt(j);
    if (((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) && s.charCodeAt(j + 1) === 0x29) return true;
    while (c === 0x20 || c === 0xac) c = s.charCodeAt(++j);
    if (isDigit(c)) return true;
  }
  return false;
}

// Facts about the last `cleanLine` result, in module variables (no object per line in the hot path).
let lastArabic = 0;
let lastForeign = 0;
let lastHasMarks = false;
/** Length of the cleaned line in code points. */
let lastCharLen = 0;
/** cyrb53 of the cleaned line's dedup key, as hash53 gives it: [low 32 bits, high 21 bits]. */
const lastKeyHash = new Uint32Array(2);

/**
 * One pass over text s[start, end): sets lastArabic/lastForeign/lastCharLen/lastKeyHash and returns the
 * CLASS flags that occur, plus C_DBL (two spaces in a row) and C_DOTS3 ("..."). The key hash is cyrb53
 * (the same function as hash53 in ./sampling) of the dedup key: the text without harakat and tatweel
 * (C_MARK, exactly the characters dedupKey in ./corpus removes); the tests check it against
 * hash53(dedupKey(text)). Look-ahead past `end` only ever sees whitespace, a line break or the end of s.
 */
function scanText(s: string, start: number, end: number): number {
  let arabic = 0;
  let foreign = 0;
  let flags = 0;
  let pairs = 0;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    const v = CLASS[c];
    if (v === C_ARABIC) {
      arabic++; // the hot path
    } else if (v !== 0) {
      foreign += (v >>> 1) & 1;
      arabic += v & C_ARABIC;
      flags |= v;
      if (c === 0x20) {
        if (s.charCodeAt(i + 1) === 0x20) flags |= C_DBL;
      } else if (c === 0x2e) {
        if (s.charCodeAt(i + 1) === 0x2e && s.charCodeAt(i + 2) === 0x2e) flags |= C_DOTS3;
      } else if (v & C_MARK) {
        continue; // not part of the dedup key
      } else if (v & C_HIGH) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) pairs++;
      }
    }
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  lastArabic = arabic;
  lastForeign = foreign;
  lastCharLen = end - start - pairs;
  finishKeyHash(h1, h2);
  return flags;
}

/** cyrb53's final mix; stores the 53-bit result as two uint32 (a double would be boxed per line). */
function finishKeyHash(h1: number, h2: number): void {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  lastKeyHash[0] = h1;
  lastKeyHash[1] = h2 & 0x1fffff;
}

/**
 * Classify and clean one body line, text[start, end) (the line may sit inside a larger decoded chunk:
 * no copy until the result). Returns the cleaned text, or null for structural lines (page markers,
 * section headers, metadata) and empty results. Sets lastArabic/lastForeign/lastHasMarks/lastCharLen/
 * lastKeyHash.
 */
function cleanLine(line: string, start: number, end: number): string | null {
  while (start < end && CLASS[line.charCodeAt(start)] & C_ANYSPACE) start++;
  while (end > start && CLASS[line.charCodeAt(end - 1)] & C_ANYSPACE) end--;
  start = contentStart(line, start, end);
  if (start === -1) return null;
  // Bare lines (no prefix) are content when they hold enough Arabic (the caller checks), docs/openiti.md#parsing-rules.

  // The fast path keeps line[start, textEnd): find the trailing verse number first so that one pass
  // can also hash the dedup key and count code points of exactly that text.
  const textEnd = trailingNumberEnd(line, start, end);
  let flags = scanText(line, start, textEnd);
  // The trailing number's digits and spaces hold no letters, but unusual or doubled spaces there send
  // the line to the general path (as they always have).
  for (let i = textEnd; i < end; i++) {
    const c = line.charCodeAt(i);
    flags |= CLASS[c];
    if (c === 0x20 && line.charCodeAt(i + 1) === 0x20) flags |= C_DBL;
  }
  lastHasMarks = (flags & C_MARK) !== 0;
  // Fast path: nothing to remove or collapse; only a trailing verse number may go.
  if ((flags & C_SLOW) === 0) return line.slice(start, textEnd);
  return cleanGeneralLine(line, start, end, textEnd, flags);
}

/**
 * Where the text of the trimmed line[start, end) begins after its prefix (`# `, `#`, `~~`), or -1 for a
 * structural line (page marker, section header, metadata, "# | title") or one with no text.
 */
function contentStart(line: string, start: number, end: number): number {
  if (start === end) return -1;
  const c0 = line.charCodeAt(start);
  if (c0 === 0x50 /* P */ && PAGE_AT_START.test(line.slice(start, Math.min(start + 16, end)))) return -1; // page marker line (docs/openiti.md#parsing-rules: skip)
  if (c0 === 0x23 /* # */) {
    if (end - start === 1) return -1;
    const c1 = line.charCodeAt(start + 1);
    if (c1 === 0x23) return -1; // ##, ### |, ### || AUTO, #####ENDNOTES#: section markers
    if (end - start >= 6 && line.startsWith('#META#', start)) return -1;
    start += c1 === 0x20 ? 2 : 1;
    while (start < end && CLASS[line.charCodeAt(start)] & C_ANYSPACE) start++;
    if (start < end && line.charCodeAt(start) === 0x7c /* | */) return -1; // "# | title": a header in older files
  } else if (c0 === 0x7e /* ~ */ && start + 1 < end && line.charCodeAt(start + 1) === 0x7e) {
    start += 2;
    while (start < end && line.charCodeAt(start) === 0x7e) start++; // continuation / poem line: keep the text
    while (start < end && CLASS[line.charCodeAt(start)] & C_ANYSPACE) start++;
  }
  return start < end ? start : -1;
}

/**
 * cleanLine for a line whose scan found something that may need removing or collapsing (`flags`):
 * line[start, end) is its text after the prefix, line[start, textEnd) the fast path's result.
 */
function cleanGeneralLine(line: string, start: number, end: number, textEnd: number, flags: number): string | null {
  const raw = line.slice(start, end);
  let s = raw;
  let removed = false; // something was cut out: the spaces around it may need collapsing
  let respace = (flags & C_DBL) !== 0;
  if (flags & C_REMOVALS) {
    const before = s;
    s = removeMarkers(s, flags);
    removed = s !== before;
  }
  if (flags & C_PIPE) {
    const t = s.trimStart();
    const u = t.replace(QURAN_PREFIX, '');
    if (u !== t) {
      s = u;
      removed = true;
    }
  }
  if (flags & C_PCT) {
    s = s.replace(HEMISTICH_PERCENT, ' ');
    respace = true;
  }
  if (flags & C_DOTS3 && s.includes(' ... ')) {
    s = s.replace(HEMISTICH_DOTS, ' ');
    respace = true;
  }
  // Removals and separators leave plain spaces; only other whitespace needs the (slow) \s+ regex.
  if (flags & C_WS) s = s.replace(WHITESPACE, ' ');
  else if ((removed || respace) && s.includes('  ')) s = s.replace(SPACES, ' ');
  if (s === raw) {
    // Nothing matched after all (a '(' that is no footnote, a 'P' that is no page marker): the result
    // is the fast path's, and so are the facts the scan set.
    return line.slice(start, textEnd);
  }
  return trimAndRescan(s);
}

/** Page markers, milestones, tags, HTML, footnote references and invisible characters, each replaced. */
function removeMarkers(s: string, flags: number): string {
  // Each regex runs only when a cheap check finds a real match (most '(' and 'm' are not markers).
  if (flags & C_P && s.includes('PageV')) s = s.replace(PAGE_ANYWHERE, ' ');
  if (flags & C_M && followedByDigit(s, 'ms')) s = s.replace(MILESTONE, ' ');
  if (flags & C_AT && hasTag(s)) s = s.replace(TAG, ' ');
  if (flags & C_LT && s.includes('>')) s = s.replace(HTML_TAG, ' ');
  if (flags & C_PAREN && hasFootnote(s)) s = s.replace(FOOTNOTE, ' ');
  if (flags & C_INVIS) s = s.replace(INVISIBLE, '');
  return s;
}

/** The general path's last step: trim, strip the trailing number, scan again for the facts. */
function trimAndRescan(s: string): string | null {
  // Trim (the same characters as String.prototype.trim) and strip the number by indices: the scan is
  // faster on the flat result of replace() than on a slice of it.
  let a = 0;
  let b = s.length;
  while (a < b && CLASS[s.charCodeAt(a)] & C_ANYSPACE) a++;
  while (b > a && CLASS[s.charCodeAt(b - 1)] & C_ANYSPACE) b--;
  b = trailingNumberEnd(s, a, b);
  if (a === b) return null;
  scanText(s, a, b);
  return s.slice(a, b);
}

/** Clean one body line; null for structural lines (page markers, headers, metadata) or empty results. */
export function cleanContentLine(line: string): string | null {
  return cleanLine(line, 0, line.length);
}

// --- the common line, on its UTF-8 bytes ------------------------------------------------------------

/** cleanLineBytes verdicts. */
const SKIP = 0; // structural or empty: what cleanLine returns null for
const FAST = 1; // clean text = bytes [lastByteStart, lastByteEnd), facts set as by cleanLine
const GENERAL = 2; // anything else: decode the line and use cleanLine
let lastByteStart = 0;
let lastByteEnd = 0;

function isAsciiSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

function isAsciiDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

/** The digit U+0660–0669 or U+06F0–06F9 encoded as b[i - 1], b[i]? */
function isIndicDigitEndingAt(b: Uint8Array, i: number): boolean {
  const c = b[i];
  return (b[i - 1] === 0xd9 && c >= 0xa0 && c <= 0xa9) || (b[i - 1] === 0xdb && c >= 0xb0 && c <= 0xb9);
}

/** trailingNumberEnd on UTF-8 bytes, for ASCII spaces (other spaces make the line GENERAL anyway). */
function trailingNumberEndBytes(b: Uint8Array, start: number, end: number): number {
  let i = end - 1;
  while (i >= start && isAsciiSpace(b[i])) i--;
  const lastDigit = i;
  for (;;) {
    if (i >= start && isAsciiDigit(b[i])) i--;
    else if (i > start && isIndicDigitEndingAt(b, i)) i -= 2;
    else break;
  }
  if (i === lastDigit || i < start || !isAsciiSpace(b[i])) return end;
  while (i >= start && isAsciiSpace(b[i])) i--;
  return i + 1;
}

/** PAGE_AT_START (`PageV\d+P\d+`) on the first 16 characters of b[start, end). */
function isPageMarkerAt(b: Uint8Array, start: number, end: number): boolean {
  const lim = Math.min(start + 16, end); // ASCII throughout a match, so bytes count as characters
  if (b[start + 1] !== 0x61 || b[start + 2] !== 0x67 || b[start + 3] !== 0x65 || b[start + 4] !== 0x56) return false; // (P)ageV
  let i = start + 5;
  while (i < lim && isAsciiDigit(b[i])) i++;
  return i > start + 5 && i + 1 < lim && b[i] === 0x50 && isAsciiDigit(b[i + 1]);
}

/**
 * Would cleanLine's cheap check for the character c (found just before b[i]) send the line to a
 * removal? The bytes twin of hasFootnote / followedByDigit / includes('PageV') / hasTag for one
 * occurrence; true for every other character of C_SLOW.
 */
function startsRemoval(c: number, b: Uint8Array, i: number): boolean {
  switch (c) {
    case 0x28: {
      // "(": (1), ( 1 ), (¬1), (١), (a)
      if ((b[i] | 0x20) >= 0x61 && (b[i] | 0x20) <= 0x7a && b[i + 1] === 0x29) return true;
      for (;;) {
        if (b[i] === 0x20) i++;
        else if (b[i] === 0xc2 && b[i + 1] === 0xac) i += 2; // ¬
        else break;
      }
      return isAsciiDigit(b[i]) || isIndicDigitEndingAt(b, i + 1);
    }
    case 0x6d: // "ms" and a digit
      return b[i] === 0x73 && isAsciiDigit(b[i + 1]);
    case 0x50: // "PageV"
      return b[i] === 0x61 && b[i + 1] === 0x67 && b[i + 2] === 0x65 && b[i + 3] === 0x56;
    case 0x40: // "@" and a capital
      return b[i] >= 0x41 && b[i] <= 0x5a;
    default:
      return true;
  }
}

/**
 * cleanLine decided on the line's UTF-8 bytes b[start, end) without decoding them (a build then makes
 * strings only for the lines it keeps), for the common line: an optional `#`/`~~` prefix, ASCII
 * spacing, BMP characters and nothing to remove or collapse. Anything else is GENERAL, which the caller
 * hands to cleanLine, so results are cleanLine's by construction (and tested to be). b[end] must be
 * \r, \n or past the end, as forEachLineBytes guarantees.
 */
function cleanLineBytes(b: Uint8Array, start: number, end: number): number {
  while (start < end && isAsciiSpace(b[start])) start++;
  while (end > start && isAsciiSpace(b[end - 1])) end--;
  if (start === end) return SKIP;
  // A non-ASCII space left at either end is C_WS in the scan below, which makes the line GENERAL.
  const c0 = b[start];
  if (c0 === 0x50 /* P */ && isPageMarkerAt(b, start, end)) return SKIP;
  if (c0 === 0x23 /* # */) {
    if (end - start === 1) return SKIP;
    const c1 = b[start + 1];
    if (c1 === 0x23) return SKIP;
    if (end - start >= 6 && c1 === 0x4d && b[start + 2] === 0x45 && b[start + 3] === 0x54 && b[start + 4] === 0x41 && b[start + 5] === 0x23) return SKIP; // #META#
    start += c1 === 0x20 ? 2 : 1;
    while (start < end && isAsciiSpace(b[start])) start++;
    if (start < end && b[start] === 0x7c /* | */) return SKIP;
  } else if (c0 === 0x7e /* ~ */ && start + 1 < end && b[start + 1] === 0x7e) {
    start += 2;
    while (start < end && b[start] === 0x7e) start++;
    while (start < end && isAsciiSpace(b[start])) start++;
  }
  if (start >= end) return SKIP;

  // cleanLine's scan (see there) on decoded characters. Look-ahead reads bytes: the same for the ASCII
  // it looks for. A line with something to remove or collapse is GENERAL at once.
  const textEnd = trailingNumberEndBytes(b, start, end);
  let arabic = 0;
  let foreign = 0;
  let hasMarks = false;
  let chars = 0;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = start; i < textEnd; ) {
    let c = b[i];
    if (c < 0x80) i++;
    else if (c < 0xe0) {
      c = ((c & 0x1f) << 6) | (b[i + 1] & 0x3f);
      i += 2;
    } else if (c < 0xf0) {
      c = ((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
      i += 3;
    } else return GENERAL; // astral: a surrogate pair in UTF-16, rare
    chars++;
    const v = CLASS[c];
    if (v === C_ARABIC) {
      arabic++;
    } else if (v !== 0) {
      foreign += (v >>> 1) & 1;
      arabic += v & C_ARABIC;
      if (v & C_MARK) {
        hasMarks = true;
        continue; // not part of the dedup key
      }
      if (c === 0x20) {
        if (b[i] === 0x20) return GENERAL; // doubled space
      } else if (c === 0x2e) {
        if (b[i] === 0x2e && b[i + 1] === 0x2e) return GENERAL; // "..."
      } else if (v & C_SLOW && startsRemoval(c, b, i)) {
        return GENERAL;
      }
    }
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  // The stripped number: ASCII spaces and digits, and the bytes of Arabic-Indic digits.
  for (let i = textEnd; i < end; i++) {
    const c = b[i];
    if (c === 0x20 ? b[i + 1] === 0x20 : c < 0x80 && (CLASS[c] & C_WS) !== 0) return GENERAL; // a doubled space, a tab
  }
  lastArabic = arabic;
  lastForeign = foreign;
  lastHasMarks = hasMarks;
  lastCharLen = chars;
  finishKeyHash(h1, h2);
  lastByteStart = start;
  lastByteEnd = textEnd;
  return FAST;
}

/** The "Arabic text" test on a cleaned line (docs/openiti.md#arabic-text-test). */
export function isArabicText(s: string, opts: ParseOptions = {}): boolean {
  const { arabic, foreign } = letterCountsByScript(s);
  return passesArabic(arabic, foreign, opts.minArabicLetters ?? DEFAULT_PARSE_OPTIONS.minArabicLetters, opts.maxForeignLetterRatio ?? DEFAULT_PARSE_OPTIONS.maxForeignLetterRatio);
}

function passesArabic(arabic: number, foreign: number, minLetters: number, maxForeign: number): boolean {
  return arabic >= minLetters && foreign <= maxForeign * (arabic + foreign);
}

// --- stateful line parser ----------------------------------------------------------------------

export class NoHeaderError extends Error {
  constructor(readonly file: string, readonly detail: string) {
    super(`${file}: ${detail}`);
    this.name = 'NoHeaderError';
  }
}

export class NotUtf8Error extends Error {
  readonly detail: string;
  constructor(readonly file: string, readonly byteOffset: number) {
    const detail = `not valid UTF-8 (near byte ${byteOffset})`;
    super(`${file}: ${detail}`);
    this.detail = detail;
    this.name = 'NotUtf8Error';
  }
}

export interface ParseStats {
  /** Physical lines seen (header included). */
  lines: number;
  /** Body lines that were content after cleaning (before the Arabic filter). */
  contentLines: number;
  /** Content lines dropped by the Arabic filter (too few Arabic letters, or mostly foreign letters). */
  notArabic: number;
}

/**
 * Feed a file line by line; `push` returns the clean Arabic line or null. Tracks the header:
 * the first line must carry the `######OpenITI#` magic (unless `requireHeader` is false) and
 * everything up to `#META#Header#End#` is skipped.
 */
export class OpenITILineParser {
  private state: 'magic' | 'header' | 'body';
  readonly stats: ParseStats = { lines: 0, contentLines: 0, notArabic: 0 };
  /**
   * Facts about the last returned line, found during cleaning (saves callers further scans):
   * whether it may contain harakat or tatweel (if not, its dedup key is the text itself), its length in
   * code points, and hash53(dedupKey(text)) split into its low 32 and high 21 bits.
   */
  lastHasMarks = false;
  lastCharLen = 0;
  lastKeyHashLo = 0;
  lastKeyHashHi = 0;
  // The line pushBytes accepted last: decoded on demand by lastText().
  private pendingBytes: Buffer | null = null;
  private pendingStart = 0;
  private pendingEnd = 0;
  private pendingText: string | null = null;
  private readonly minLetters: number;
  private readonly maxForeign: number;

  constructor(
    private readonly file = '<text>',
    private readonly opts: ParseOptions & { requireHeader?: boolean } = {},
  ) {
    this.state = opts.requireHeader === false ? 'body' : 'magic';
    this.minLetters = opts.minArabicLetters ?? DEFAULT_PARSE_OPTIONS.minArabicLetters;
    this.maxForeign = opts.maxForeignLetterRatio ?? DEFAULT_PARSE_OPTIONS.maxForeignLetterRatio;
  }

  push(line: string): string | null {
    return this.pushRange(line, 0, line.length);
  }

  /**
   * `push(text.slice(start, end))` without the copy, for a line inside a decoded chunk; text[end] must
   * be a line break (\r or \n) or the end of text, as forEachLineRange guarantees.
   */
  pushRange(text: string, start: number, end: number): string | null {
    this.stats.lines++;
    if (this.state === 'body') {
      const cleaned = cleanLine(text, start, end);
      return cleaned !== null && this.accept() ? cleaned : null;
    }
    const line = text.slice(start, end); // header lines: few, no need to avoid the copy
    if (this.state === 'magic') {
      const t = line.replace(/^\ufeff/, '').trim();
      if (!t.startsWith(OPENITI_MAGIC)) {
        throw new NoHeaderError(this.file, `no OpenITI header (first line is ${JSON.stringify(t.slice(0, 40))}, expected "${OPENITI_MAGIC}")`);
      }
      this.state = 'header';
      return null;
    }
    // header: skip until its end marker
    if (line.includes(HEADER_END)) this.state = 'body';
    return null;
  }

  /**
   * `push` for a line given as UTF-8 bytes, bytes[start, end), with bytes[end] \r, \n or past the end
   * (as forEachLineBytes hands them over). Returns whether it is a clean Arabic line; its text is then
   * lastText(). Most lines are judged on their bytes, and decoded only if lastText() is called.
   */
  pushBytes(bytes: Buffer, start: number, end: number): boolean {
    if (this.state === 'body') {
      const verdict = cleanLineBytes(bytes, start, end);
      if (verdict === SKIP) {
        this.stats.lines++;
        return false;
      }
      if (verdict === FAST) {
        this.stats.lines++;
        if (!this.accept()) return false;
        this.pendingBytes = bytes;
        this.pendingStart = lastByteStart;
        this.pendingEnd = lastByteEnd;
        this.pendingText = null;
        return true;
      }
    }
    this.pendingText = this.push(bytes.toString('utf8', start, end));
    return this.pendingText !== null;
  }

  /** The text of the line the last pushBytes accepted (call it before the bytes change). */
  lastText(): string {
    this.pendingText ??= this.pendingBytes!.toString('utf8', this.pendingStart, this.pendingEnd);
    return this.pendingText;
  }

  /** Counts a cleaned line as content and applies the Arabic test; keeps the facts of a line that passes. */
  private accept(): boolean {
    this.stats.contentLines++;
    if (!passesArabic(lastArabic, lastForeign, this.minLetters, this.maxForeign)) {
      this.stats.notArabic++;
      return false;
    }
    this.lastHasMarks = lastHasMarks;
    this.lastCharLen = lastCharLen;
    this.lastKeyHashLo = lastKeyHash[0];
    this.lastKeyHashHi = lastKeyHash[1];
    return true;
  }

  /** Call at end of input: a file whose header never ends has no body. */
  end(): void {
    if (this.state === 'magic') throw new NoHeaderError(this.file, 'empty file (no OpenITI header)');
    if (this.state === 'header') throw new NoHeaderError(this.file, `OpenITI header never ends (no "${HEADER_END}" line)`);
  }
}

/** Parse a whole OpenITI text (plain or .mARkdown) into clean Arabic lines, in file order. */
export function parseOpenITIText(text: string, opts: ParseOptions & { requireHeader?: boolean; file?: string } = {}): string[] {
  const p = new OpenITILineParser(opts.file, opts);
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const raw = nl === -1 ? text.slice(start) : text.slice(start, nl);
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (nl !== -1 || line.length > 0) {
      const r = p.push(line);
      if (r !== null) out.push(r);
    }
    if (nl === -1) break;
    start = nl + 1;
  }
  p.end();
  return out;
}

// --- streaming file reading --------------------------------------------------------------------

const CHUNK = 1 << 20;

/**
 * Read a UTF-8 text file line by line in 1 MB chunks (memory stays flat), strictly: invalid UTF-8
 * throws NotUtf8Error. Each chunk is cut after its last newline byte (a newline never sits inside a
 * multi-byte sequence), validated with the native `isUtf8` and decoded natively — about twice as fast
 * as a fatal TextDecoder. A leading BOM is dropped. `onLine` is synchronous for speed; returns bytes read.
 */
export async function forEachLine(file: string, onLine: (line: string) => void): Promise<number> {
  return forEachLineRange(file, (text, start, end) => onLine(text.slice(start, end)));
}

/**
 * forEachLine without a string per line: `onLine(text, start, end)` gets each line as a range of the
 * decoded chunk `text`, line break and a trailing \r excluded, so text[end] is \r, \n or the end of the
 * chunk (for OpenITILineParser.pushRange).
 */
export async function forEachLineRange(file: string, onLine: (text: string, start: number, end: number) => void): Promise<number> {
  return forEachChunk(file, (bytes, first) => {
    const text = bytes.toString('utf8');
    let start = first && text.charCodeAt(0) === 0xfeff ? 1 : 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) !== -1) {
      onLine(text, start, nl > start && text.charCodeAt(nl - 1) === 0x0d ? nl - 1 : nl);
      start = nl + 1;
    }
    if (start < text.length) onLine(text, start, text.endsWith('\r') ? text.length - 1 : text.length); // last line without newline (eof only)
  });
}

/**
 * forEachLine without decoding: `onLine(bytes, start, end)` gets each line as UTF-8 bytes of the chunk
 * (validated; line break and a trailing \r excluded, so bytes[end] is \r, \n or past the end). For
 * OpenITILineParser.pushBytes, which decodes only the lines a caller keeps.
 */
export async function forEachLineBytes(file: string, onLine: (bytes: Buffer, start: number, end: number) => void): Promise<number> {
  return forEachChunk(file, (bytes, first) => {
    let start = first && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0; // BOM
    let nl: number;
    while ((nl = bytes.indexOf(0x0a, start)) !== -1) {
      onLine(bytes, start, nl > start && bytes[nl - 1] === 0x0d ? nl - 1 : nl);
      start = nl + 1;
    }
    if (start < bytes.length) onLine(bytes, start, bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length); // last line without newline (eof only)
  });
}

/** The reading behind forEachLine*: `onChunk` gets validated chunks that end after a newline (or at eof). */
async function forEachChunk(file: string, onChunk: (bytes: Buffer, first: boolean) => void): Promise<number> {
  const fh = await open(file, 'r');
  let buf = Buffer.allocUnsafe(CHUNK);
  let carry = 0; // bytes of an unfinished line kept at the start of buf
  let pos = 0; // file offset of the next read
  let first = true;
  try {
    for (;;) {
      if (carry === buf.length) {
        // one line longer than the buffer: grow it
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, carry, buf.length - carry, pos);
      const end = carry + bytesRead;
      const eof = bytesRead === 0;
      const cut = eof ? end : buf.lastIndexOf(0x0a, end - 1) + 1;
      if (cut > 0) {
        const bytes = buf.subarray(0, cut);
        if (!isUtf8(bytes)) throw new NotUtf8Error(file, pos - carry + firstInvalidUtf8(bytes));
        onChunk(bytes, first);
        first = false;
        buf.copy(buf, 0, cut, end);
        carry = end - cut;
      } else {
        carry = end;
      }
      pos += bytesRead;
      if (eof) break;
    }
    return pos;
  } finally {
    await fh.close();
  }
}

/** Offset of the first byte that breaks UTF-8 (for the error message; only runs on bad files). */
function firstInvalidUtf8(bytes: Buffer): number {
  const text = bytes.toString('utf8');
  const bad = text.indexOf('\ufffd');
  return bad === -1 ? 0 : Buffer.byteLength(text.slice(0, bad), 'utf8');
}

/**
 * Stream one OpenITI file through the parser; `onText` gets each clean Arabic line in file order, and
 * the parser, whose `last*` fields describe that line (code-point length, dedup-key hash, marks).
 * Throws NotUtf8Error / NoHeaderError / fs errors.
 */
export async function parseOpenITIFile(
  file: string,
  onText: (text: string, parser: OpenITILineParser) => void,
  opts: ParseOptions & { requireHeader?: boolean } = {},
): Promise<ParseStats & { bytes: number }> {
  const p = new OpenITILineParser(file, opts);
  const bytes = await forEachLineBytes(file, (chunk, start, end) => {
    if (p.pushBytes(chunk, start, end)) onText(p.lastText(), p);
  });
  p.end();
  return { ...p.stats, bytes };
}
