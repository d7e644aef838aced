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
 * CLASS flags of the characters of b[from, end) (plus DOTS3) added to `flags`, or -1 if the line must
 * stay GENERAL. Only the flags the caller reads are exact: an Arabic-block character adds C_MARK when
 * it is one and nothing else (its letter flags are not needed here), so most characters cost a byte test.
 */
function markerFlags(b: Uint8Array, from: number, end: number, flags: number): number {
  for (let i = from; i < end;) {
    let c = b[i];
    if (c < 0x80) {
      i++;
      flags |= CLASS[c];
      if (c === 0x2e && b[i] === 0x2e && b[i + 1] === 0x2e && i + 1 < end) flags |= DOTS3;
      continue;
    }
    if (c === 0xd9 || c === 0xda || c === 0xdb) {
      // U+0640–06FF: only the tatweel, harakat and superscript alef (U+0640, 064B–065F, 0670) matter
      const d = b[i + 1];
      if (c === 0xd9 && (d === 0x80 || (d >= 0x8b && d <= 0x9f) || d === 0xb0)) flags |= C_MARK;
      i += 2;
      continue;
    }
    if (c < 0xe0) {
      c = ((c & 0x1f) << 6) | (b[i + 1] & 0x3f);
      i += 2;
    } else if (c < 0xf0) {
      c = ((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
      i += 3;
    } else return -1; // astral
    flags |= CLASS[c];
  }
  return flags & C_UNHANDLED ? -1 : flags;
}

/**
 * cleanLine (likelyToChange) on b[start, end): the text after the line's prefix, with no ASCII space at
 * either end. The caller has scanned b[start, resume) and found the CLASS flags `seen` there (no `...`
 * lies wholly inside it). FAST with the cleaned text in lineFacts.bytes[byteStart, byteEnd) and its
 * facts set as cleanLine sets them; SKIP when nothing is left; GENERAL for a line these passes do not
 * cover.
 */
export function cleanMarkedBytes(b: Uint8Array, start: number, end: number, resume: number, seen: number): number {
  const flags = markerFlags(b, resume, end, seen);
  if (flags === -1) return GENERAL;
  if (scratch.length < end - start) scratch = new Uint8Array(Math.max(end - start, scratch.length * 2));
  const out = scratch; // every pass shortens or keeps the text, so it fits
  // Each pass reads the text so far (b[start, end), then out[0, to)) and writes it to out.
  let src = b;
  let from = start;
  let to = end;
  if (flags & C_P) {
    to = replacePageMarkers(src, from, to, out);
    src = out;
    from = 0;
  }
  if (flags & C_M) {
    to = replaceMilestones(src, from, to, out);
    src = out;
    from = 0;
  }
  if (flags & C_PAREN) {
    to = replaceFootnotes(src, from, to, out);
    src = out;
    from = 0;
  }
  if (flags & C_PIPE) from = quranPrefixEnd(src, from, to);
  if (flags & C_PCT) {
    to = replacePercents(src, from, to, out);
    src = out;
    from = 0;
  }
  if (flags & DOTS3) {
    to = replaceSpacedDots(src, from, to, out);
    src = out;
    from = 0;
  }
  while (from < to && src[from] === 0x20) from++;
  while (to > from && src[to - 1] === 0x20) to--;
  to = trailingNumberEndBytes(src, from, to);
  if (from === to) return SKIP;
  lineFacts.hasMarks = (flags & C_MARK) !== 0;
  collapseAndCount(src, from, to, out);
  return FAST;
}

/**
 * Copies src[from, to) to the start of out with each run of spaces made one (cleanLine's SPACES), and
 * sets lineFacts' letter counts, length and dedup-key hash on the result, as cleanLine's scan does.
 */
function collapseAndCount(src: Uint8Array, from: number, to: number, out: Uint8Array): void {
  let w = 0;
  let arabic = 0;
  let foreign = 0;
  let chars = 0;
  let h1 = 0xdeadbeef | 0; // cyrb53's seed as an int32: as a double (> 2^31) it would keep h1 a double in the loop
  let h2 = 0x41c6ce57;
  for (let r = from; r < to;) {
    let c = src[r];
    if (c < 0x80) {
      r++;
      if (c === 0x20 && out[w - 1] === 0x20) continue; // w > 0: the text starts with no space
      out[w++] = c;
    } else if (c < 0xe0) {
      const c1 = src[r + 1]; // read before writing: out may be src, one byte behind
      out[w++] = c;
      out[w++] = c1;
      c = ((c & 0x1f) << 6) | (c1 & 0x3f);
      r += 2;
    } else {
      const c1 = src[r + 1];
      const c2 = src[r + 2];
      out[w++] = c;
      out[w++] = c1;
      out[w++] = c2;
      c = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
      r += 3;
    }
    chars++;
    const v = CLASS[c];
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
