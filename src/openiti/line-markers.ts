/**
 * OpenITI markers that cleaning removes or rewrites (page markers, milestones, tags, HTML, footnote
 * references, invisible characters, verse prefixes, hemistich separators), with the cheap checks that
 * keep each regex from running on lines it cannot match.
 */
import { C_AT, C_INVIS, C_LT, C_M, C_P, C_PAREN, isDigit } from './char-classes';

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
export const QURAN_PREFIX = /^\d+\|\d+\|\s*/;
/** `%~%`, then any other `%` (one pass: the same matches as replacing %~% first, then %). */
export const HEMISTICH_PERCENT = /%~%|%/g;
export const HEMISTICH_DOTS = / \.\.\. /g;
export const WHITESPACE = /\s+/g;
export const SPACES = / {2,}/g;

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
    if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a && s.charCodeAt(j + 1) === 0x29) return true;
    while (c === 0x20 || c === 0xac) c = s.charCodeAt(++j);
    if (isDigit(c)) return true;
  }
  return false;
}

/** Page markers, milestones, tags, HTML, footnote references and invisible characters, each replaced. */
export function removeMarkers(s: string, flags: number): string {
  // Each regex runs only when a cheap check finds a real match (most '(' and 'm' are not markers).
  if (flags & C_P && s.includes('PageV')) s = s.replace(PAGE_ANYWHERE, ' ');
  if (flags & C_M && followedByDigit(s, 'ms')) s = s.replace(MILESTONE, ' ');
  if (flags & C_AT && hasTag(s)) s = s.replace(TAG, ' ');
  if (flags & C_LT && s.includes('>')) s = s.replace(HTML_TAG, ' ');
  if (flags & C_PAREN && hasFootnote(s)) s = s.replace(FOOTNOTE, ' ');
  if (flags & C_INVIS) s = s.replace(INVISIBLE, '');
  return s;
}
