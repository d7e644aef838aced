/**
 * Cleaning one decoded body line (docs/openiti.md#parsing-rules): prefix and structural-line detection, marker
 * removal, trailing verse numbers; one table-driven pass counts letters, code points and hashes the
 * dedup key of exactly the text kept, and a regex runs only when that pass says it can match.
 */
import {
  C_ANYSPACE,
  C_ARABIC,
  C_FOREIGN,
  C_DBL,
  C_DOTS3,
  C_HIGH,
  C_MARK,
  C_PCT,
  C_PIPE,
  C_REMOVALS,
  C_SLOW,
  C_WS,
  CLASS,
  isDigit,
  isSpace,
} from './char-classes';
import { finishKeyHash, lineFacts } from './line-facts';
import { HEMISTICH_DOTS, HEMISTICH_PERCENT, QURAN_PREFIX, removeMarkers, SPACES, WHITESPACE } from './line-markers';

const PAGE_AT_START = /^PageV\d+P\d+/;

/**
 * End index after stripping a trailing verse/line number (`\s+\d+\s*$`, docs/openiti.md#parsing-rules; Unicode digits as
 * Python's `\d`) from line[start, end).
 */
export function trailingNumberEnd(s: string, start: number, end: number): number {
  let i = end - 1;
  while (i >= start && isSpace(s.charCodeAt(i))) i--;
  const lastDigit = i;
  while (i >= start && isDigit(s.charCodeAt(i))) i--;
  if (i === lastDigit || i < start || !isSpace(s.charCodeAt(i))) return end;
  while (i >= start && isSpace(s.charCodeAt(i))) i--;
  return i + 1;
}

/**
 * One pass over text s[start, end): sets lineFacts.arabic, .foreign, .charLen and .keyHash and returns
 * the CLASS flags that occur, plus C_DBL (two spaces in a row) and C_DOTS3 ("..."). The key hash is
 * cyrb53 (the same function as hash53 in ./sampling) of the dedup key: the text without harakat and
 * tatweel (C_MARK, exactly the characters dedupKey in ./scan-eligible removes); the tests check it
 * against hash53(dedupKey(text)). Look-ahead past `end` only ever sees whitespace, a line break or the
 * end of s.
 */
function scanText(s: string, start: number, end: number): number {
  let arabic = 0;
  let foreign = 0;
  let flags = 0;
  let pairs = 0;
  let h1 = 0xdeadbeef | 0; // cyrb53's seed as an int32: as a double (> 2^31) it would keep h1 a double in the loop
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
  lineFacts.arabic = arabic;
  lineFacts.foreign = foreign;
  lineFacts.charLen = end - start - pairs;
  finishKeyHash(h1, h2);
  return flags;
}

/**
 * The flags scanText would return for s[start, end), without counting or hashing: the first pass over
 * a line that is likely to change (its facts are then found on the result, not on the line).
 */
function scanFlags(s: string, start: number, end: number): number {
  let flags = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    const v = CLASS[c];
    if (v > C_FOREIGN) {
      // more than a plain letter (letters carry C_ARABIC or C_FOREIGN alone)
      flags |= v;
      if (c === 0x20) {
        if (s.charCodeAt(i + 1) === 0x20) flags |= C_DBL;
      } else if (c === 0x2e) {
        if (s.charCodeAt(i + 1) === 0x2e && s.charCodeAt(i + 2) === 0x2e) flags |= C_DOTS3;
      }
    }
  }
  return flags;
}

/**
 * Classify and clean one body line, text[start, end) (the line may sit inside a larger decoded chunk:
 * no copy until the result). Returns the cleaned text, or null for structural lines (page markers,
 * section headers, metadata) and empty results. Sets lineFacts' arabic, foreign, hasMarks, charLen and
 * keyHash. `likelyToChange`: the caller already knows the line holds something to remove or collapse
 * (cleanLineBytes said GENERAL), so the first pass only looks for what, and the facts are found once,
 * on the result.
 */
export function cleanLine(line: string, start: number, end: number, likelyToChange = false): string | null {
  while (start < end && CLASS[line.charCodeAt(start)] & C_ANYSPACE) start++;
  while (end > start && CLASS[line.charCodeAt(end - 1)] & C_ANYSPACE) end--;
  start = contentStart(line, start, end);
  if (start === -1) return null;
  // Bare lines (no prefix) are content when they hold enough Arabic (the caller checks), docs/openiti.md#parsing-rules.

  // The fast path keeps line[start, textEnd): find the trailing verse number first so that one pass
  // can also hash the dedup key and count code points of exactly that text.
  const textEnd = trailingNumberEnd(line, start, end);
  let flags: number;
  if (likelyToChange) {
    flags = scanFlags(line, start, end);
  } else {
    flags = scanText(line, start, textEnd);
    // The trailing number's digits and spaces hold no letters, but unusual or doubled spaces there send
    // the line to the general path (as they always have).
    for (let i = textEnd; i < end; i++) {
      const c = line.charCodeAt(i);
      flags |= CLASS[c];
      if (c === 0x20 && line.charCodeAt(i + 1) === 0x20) flags |= C_DBL;
    }
  }
  lineFacts.hasMarks = (flags & C_MARK) !== 0;
  // Fast path: nothing to remove or collapse; only a trailing verse number may go.
  if ((flags & C_SLOW) === 0) return keepText(line, start, textEnd, likelyToChange);
  return cleanGeneralLine(line, start, end, textEnd, flags, likelyToChange);
}

/** line[start, textEnd) as the result; its facts are found first unless scanText already has. */
function keepText(line: string, start: number, textEnd: number, factsMissing: boolean): string {
  if (factsMissing) scanText(line, start, textEnd);
  return line.slice(start, textEnd);
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
function cleanGeneralLine(line: string, start: number, end: number, textEnd: number, flags: number, factsMissing: boolean): string | null {
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
    // is the fast path's, and so are its facts.
    return keepText(line, start, textEnd, factsMissing);
  }
  return trimAndRescan(s);
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
