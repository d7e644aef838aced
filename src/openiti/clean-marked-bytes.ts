/**
 * cleanLine's general path on UTF-8 bytes, for the lines most often sent there: page markers inside the
 * text, milestones, footnote references, a Qur'an verse prefix, hemistich separators (`%~%`, `%`,
 * ` ... `) and doubled spaces. The replacements run as byte passes (marker-passes-bytes.ts) in
 * cleanLine's order, so the text is cleanLine's; the tests compare the two on every construct. A line
 * with anything else to remove (tags, HTML, invisible characters) or other whitespace, or an astral
 * character, stays GENERAL for cleanLine.
 */
import { C_ARABIC, C_AT, C_INVIS, C_LT, C_M, C_MARK, C_P, C_PAREN, C_PCT, C_PIPE, C_WS, CLASS } from './char-classes';
import { FAST, GENERAL, SKIP, trailingNumberEndBytes } from './line-bytes';
import { finishKeyHash, lineFacts } from './line-facts';
import {
  quranPrefixEnd,
  replaceFootnotes,
  replaceMilestones,
  replacePageMarkers,
  replacePercents,
  replaceSpacedDots,
} from './marker-passes-bytes';

/** Markers left to cleanLine: tags and HTML are rare, invisible characters and odd spaces rarer. */
const C_UNHANDLED = C_AT | C_LT | C_INVIS | C_WS;
/** Set by the scan below: `...` occurs, so ` ... ` may. */
const DOTS3 = 1 << 30;

/** The cleaned text of the last FAST verdict (lineFacts.bytes points here); grown on demand. */
let scratch = new Uint8Array(4096);

/**
 * Copies b[start, end) to out[0, end - start) (plus one byte past it) and returns the CLASS flags of the
 * characters of b[resume, end) (plus DOTS3) added to `flags`, or -1 if the line must stay GENERAL. Only
 * the flags the caller reads are exact: letters add their letter flags too. ASCII and two-byte
 * characters decode without a branch on the byte, as in cleanLineBytes' run.
 */
function copyWithFlags(b: Uint8Array, start: number, resume: number, end: number, flags: number, out: Uint8Array): number {
  const classOf = CLASS;
  let w = 0;
  for (let i = start; i < resume; i++) out[w++] = b[i];
  for (let i = resume; i < end;) {
    const c0 = b[i];
    const c1 = b[i + 1];
    if (c0 >= 0xe0) {
      if (c0 >= 0xf0) return -1; // astral
      const c2 = b[i + 2];
      flags |= classOf[((c0 & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f)];
      out[w++] = c0;
      out[w++] = c1;
      out[w++] = c2;
      i += 3;
      continue;
    }
    const two = (c0 << 24) >> 31; // all ones at the lead byte of a 2-byte sequence
    const c = (c0 & ~two) | ((((c0 & 0x1f) << 6) | (c1 & 0x3f)) & two);
    flags |= classOf[c];
    if (c === 0x2e && c1 === 0x2e && b[i + 2] === 0x2e && i + 2 < end) flags |= DOTS3;
    out[w] = c0;
    out[w + 1] = c1; // the next byte, or the second of this character
    w += 1 - two;
    i += 1 - two;
  }
  return flags & C_UNHANDLED ? -1 : flags;
}

/**
 * cleanLine (likelyToChange) on b[start, end): the text after the line's prefix, with no ASCII space at
 * either end. The caller has scanned b[start, resume), where no marker, `...` or doubled space starts,
 * and hands over the CLASS flags `seen` of its characters and its scan state at `resume`: hash words,
 * length and letter counts. FAST with the cleaned text in
 * lineFacts.bytes[byteStart, byteEnd) and its facts set as cleanLine sets them; SKIP when nothing is
 * left; GENERAL for a line these passes do not cover.
 */
export function cleanMarkedBytes(
  b: Uint8Array,
  start: number,
  end: number,
  resume: number,
  seen: number,
  h1: number,
  h2: number,
  chars: number,
  arabic: number,
  foreign: number,
): number {
  const n = end - start;
  if (scratch.length <= n) scratch = new Uint8Array(Math.max(n + 1, scratch.length * 2));
  const out = scratch; // every pass shortens or keeps the text, so it fits
  const flags = copyWithFlags(b, start, resume, end, seen, out);
  if (flags === -1) return GENERAL;
  // The text before `resume` comes out as it is, so the caller's scan state stands for it, unless a `(`
  // there becomes a footnote once a page marker or milestone inside the parentheses turns into a space,
  // a Qur'an prefix goes, or the trailing number or spaces reach back into it (both checked below). No
  // other match begins before resume - 1 (the caller stopped at the first character that could start
  // one): a ` ... ` begins at the space before its dots, and is replaced by a space.
  let kept = seen & C_PAREN ? 0 : resume - start;
  let from = 0;
  let to = n;
  let passFrom = kept > 0 ? kept - 1 : 0; // the passes run in place on out[passFrom, to)
  if (flags & C_P) to = replacePageMarkers(out, passFrom, to);
  if (flags & C_M) to = replaceMilestones(out, passFrom, to);
  if (flags & C_PAREN) to = replaceFootnotes(out, passFrom, to);
  if (flags & C_PIPE) passFrom = from = quranPrefixEnd(out, 0, to); // the later passes see the text after it
  if (flags & C_PCT) to = replacePercents(out, passFrom, to);
  if (flags & DOTS3) to = replaceSpacedDots(out, passFrom, to);
  while (from < to && out[from] === 0x20) from++;
  while (to > from && out[to - 1] === 0x20) to--;
  to = trailingNumberEndBytes(out, from, to);
  if (from === to) return SKIP;
  lineFacts.hasMarks = (flags & C_MARK) !== 0;
  if (from !== 0 || to < kept) kept = 0; // the text lost part of what the caller scanned
  if (kept === 0) {
    // count and hash it all
    h1 = 0xdeadbeef | 0; // cyrb53's seed as an int32, as cleanLineBytes starts it
    h2 = 0x41c6ce57;
    chars = arabic = foreign = 0;
  }
  collapseAndCount(out, from, to, kept, h1, h2, chars, arabic, foreign);
  return FAST;
}

/**
 * Moves out[from, to) to the start of out with each run of spaces made one (cleanLine's SPACES), and
 * sets lineFacts' letter counts, length and dedup-key hash on the result, as cleanLine's scan does. The
 * first `kept` bytes (from is then 0) are final and already counted: the scan state after them is given.
 * out must hold a byte past `to`. ASCII and two-byte characters move without a branch on the byte.
 */
function collapseAndCount(
  out: Uint8Array,
  from: number,
  to: number,
  kept: number,
  h1: number,
  h2: number,
  chars: number,
  arabic: number,
  foreign: number,
): void {
  const classOf = CLASS;
  let w = kept;
  let prev = kept > 0 ? out[kept - 1] : 0; // the last byte written
  for (let r = kept > 0 ? kept : from; r < to;) {
    const c0 = out[r];
    const c1 = out[r + 1]; // read before writing: w may be behind r
    let c: number;
    if (c0 < 0xe0) {
      const two = (c0 << 24) >> 31; // all ones at the lead byte of a 2-byte sequence
      c = (c0 & ~two) | ((((c0 & 0x1f) << 6) | (c1 & 0x3f)) & two);
      r += 1 - two;
      if (((c ^ 0x20) | (prev ^ 0x20)) === 0) continue; // a space after a space
      out[w] = c0;
      out[w + 1] = c1; // the second byte of this character, or the byte at r (w < r) or r itself
      w += 1 - two;
      prev = (c1 & two) | (c0 & ~two);
    } else {
      const c2 = out[r + 2];
      out[w++] = c0;
      out[w++] = c1;
      out[w++] = c2;
      c = ((c0 & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
      r += 3;
      prev = c2;
    }
    chars++;
    const v = classOf[c];
    arabic += v & C_ARABIC;
    foreign += (v >>> 1) & 1;
    if (v & C_MARK) continue; // not part of the dedup key
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  lineFacts.arabic = arabic;
  lineFacts.foreign = foreign;
  lineFacts.charLen = chars;
  finishKeyHash(h1, h2);
  lineFacts.bytes = out;
  lineFacts.byteStart = 0;
  lineFacts.byteEnd = w;
}
