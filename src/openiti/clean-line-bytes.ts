/**
 * cleanLine on the line's UTF-8 bytes, for the common line: most lines of a build are judged without
 * being decoded, and only those a caller keeps become strings.
 */
import { C_ARABIC, C_DOT, C_MARK, C_SLOW, C_WS, CLASS } from './char-classes';
import { cleanMarkedBytes } from './clean-marked-bytes';
import { FAST, GENERAL, isAsciiDigit, isAsciiSpace, isIndicDigitEndingAt, SKIP, trailingNumberEndBytes } from './line-bytes';
import { finishKeyHash, lineFacts } from './line-facts';

export { FAST, GENERAL, SKIP } from './line-bytes';

/** Characters a run of plain characters stops at: dedup-key marks, anything C_SLOW, and the `.` of a `...`. */
const RUN_STOP = C_MARK | C_SLOW | C_DOT;

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
        else if (b[i] === 0xc2 && b[i + 1] === 0xac)
          i += 2; // ¬
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
 * contentStart (clean-line.ts) on bytes: where the text of b[start, end) (end trimmed) begins after
 * leading ASCII spaces and the line's prefix (`# `, `#`, `~~`), or -1 for a structural or empty line.
 */
function contentStartBytes(b: Uint8Array, start: number, end: number): number {
  while (start < end && isAsciiSpace(b[start])) start++;
  if (start === end) return -1;
  const c0 = b[start];
  if (c0 === 0x50 /* P */ && isPageMarkerAt(b, start, end)) return -1;
  if (c0 === 0x23 /* # */) {
    if (end - start === 1) return -1;
    const c1 = b[start + 1];
    if (c1 === 0x23) return -1;
    if (end - start >= 6 && c1 === 0x4d && b[start + 2] === 0x45 && b[start + 3] === 0x54 && b[start + 4] === 0x41 && b[start + 5] === 0x23)
      return -1; // #META#
    start += c1 === 0x20 ? 2 : 1;
    while (start < end && isAsciiSpace(b[start])) start++;
    if (start < end && b[start] === 0x7c /* | */) return -1;
  } else if (c0 === 0x7e /* ~ */ && start + 1 < end && b[start + 1] === 0x7e) {
    start += 2;
    while (start < end && b[start] === 0x7e) start++;
    while (start < end && isAsciiSpace(b[start])) start++;
  }
  return start < end ? start : -1;
}

/**
 * cleanLine decided on the line's UTF-8 bytes b[start, end) without decoding them (a build then makes
 * strings only for the lines it keeps): the common line (an optional `#`/`~~` prefix, ASCII spacing, BMP
 * characters, nothing to remove or collapse) is judged in one scan and its text is a range of b; a line
 * with page markers, milestones, footnotes, a verse prefix, hemistich separators or doubled spaces is
 * cleaned into a scratch buffer by cleanMarkedBytes. Anything else is GENERAL, which the caller hands
 * to cleanLine. Results are cleanLine's (the tests compare them on every construct). b[end] must be
 * \r, \n or past the end, as forEachLineBytes guarantees.
 */
// long: the parser's hot loop; its counters and hash stay in one frame (moving the trailing-number check out measured slower, bench/parse-openiti.ts)
export function cleanLineBytes(b: Uint8Array, start: number, end: number): number {
  while (end > start && isAsciiSpace(b[end - 1])) end--;
  // A non-ASCII space left at either end is C_WS in the scan below, which makes the line GENERAL.
  start = contentStartBytes(b, start, end);
  if (start === -1) return SKIP;

  // cleanLine's scan (see there) on decoded characters. Look-ahead reads bytes: the same for the ASCII
  // it looks for. A line with something to remove or collapse goes to cleanMarkedBytes at once.
  const textEnd = trailingNumberEndBytes(b, start, end);
  let arabic = 0;
  let foreign = 0;
  let hasMarks = false;
  let chars = 0;
  let seen = 0; // CLASS flags of the characters before the stop that the full step saw (the run's add none cleanMarkedBytes reads)
  let h1 = 0xdeadbeef | 0; // cyrb53's seed as an int32: as a double (> 2^31) it would keep h1 a double in the loop
  let h2 = 0x41c6ce57;
  // Module bindings read in the loop cost a context load and checks per read; locals do not.
  const classOf = CLASS;
  const runStop = RUN_STOP;
  for (let i = start; ;) {
    // A run of plain characters: ASCII and 2-byte ones that only count and hash. It decodes without a
    // branch on the byte (Arabic words and ASCII spaces alternate, which a branch would mispredict) and
    // stops at anything the full step below must look at.
    while (i < textEnd) {
      const c0 = b[i];
      const c1 = b[i + 1];
      if (c0 >= 0xe0) break;
      const two = (c0 << 24) >> 31; // all ones at the lead byte of a 2-byte sequence (i never points inside one)
      const c = (c0 & ~two) | ((((c0 & 0x1f) << 6) | (c1 & 0x3f)) & two);
      const v = classOf[c];
      if ((v & runStop) !== 0 || ((c ^ 0x20) | (c1 ^ 0x20)) === 0) break; // or a doubled space
      i += 1 - two;
      chars++;
      arabic += v & 1; // C_ARABIC
      foreign += (v >>> 1) & 1;
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    if (i >= textEnd) break;
    // The full step, for one character the run stopped at.
    const at = i;
    let c = b[i];
    if (c < 0x80) i++;
    else if (c < 0xe0) {
      c = ((c & 0x1f) << 6) | (b[i + 1] & 0x3f);
      i += 2;
    } else if (c < 0xf0) {
      c = ((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
      i += 3;
    } else return GENERAL; // astral: a surrogate pair in UTF-16, rare
    const v = CLASS[c];
    // Handed over with the scan's state before this character, so cleanMarkedBytes need not scan b[start, at) again.
    // (A dedup-key mark is none of these: it is counted below and left out of the hash.)
    if (c === 0x20) {
      if (b[i] === 0x20) return cleanMarkedBytes(b, start, end, at, seen, h1, h2, chars, arabic, foreign); // doubled space
    } else if (c === 0x2e) {
      if (b[i] === 0x2e && b[i + 1] === 0x2e) return cleanMarkedBytes(b, start, end, at, seen, h1, h2, chars, arabic, foreign); // "..."
    } else if (v & C_SLOW && startsRemoval(c, b, i)) {
      return cleanMarkedBytes(b, start, end, at, seen, h1, h2, chars, arabic, foreign);
    }
    chars++;
    foreign += (v >>> 1) & 1;
    arabic += v & C_ARABIC;
    seen |= v;
    if (v & C_MARK) {
      hasMarks = true;
      continue; // not part of the dedup key
    }
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  // The stripped number: ASCII spaces and digits, and the bytes of Arabic-Indic digits.
  for (let i = textEnd; i < end; i++) {
    const c = b[i];
    if (c === 0x20 ? b[i + 1] === 0x20 : c < 0x80 && (CLASS[c] & C_WS) !== 0)
      return cleanMarkedBytes(b, start, end, textEnd, seen, h1, h2, chars, arabic, foreign); // a doubled space, a tab
  }
  lineFacts.arabic = arabic;
  lineFacts.foreign = foreign;
  lineFacts.hasMarks = hasMarks;
  lineFacts.charLen = chars;
  finishKeyHash(h1, h2);
  lineFacts.bytes = b;
  lineFacts.byteStart = start;
  lineFacts.byteEnd = textEnd;
  return FAST;
}
