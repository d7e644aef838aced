/**
 * Arabic-script helpers, the one home of every Arabic character set the project uses: letter counting
 * (dataset loaders), the diacritic and tatweel sets, and the orthographic normalisation switches (the
 * retrieval match keys, the verbatim-gold test, the corpus duplicate key; the scoring profiles are ./profiles).
 *
 * "Arabic letter" = a Unicode letter (\p{L}) in the Arabic script, which covers the basic block
 * (U+0621–U+064A), extended letters (ٱ, پ, ی …) and presentation forms, but not diacritics (harakat are
 * marks, \p{M}), Arabic-Indic digits (\p{Nd}), punctuation (، ؛ ؟) or the tatweel U+0640 (a letter
 * modifier used only for stretching, so it says nothing about the text being Arabic).
 */

import { canonical } from './canonical';

const ARABIC_LETTER = /(?!\u0640)(?=\p{Script=Arabic})\p{L}/gu;
const ANY_LETTER = /\p{L}/gu;

/** Number of Arabic letters in `text` (see module comment for what counts). */
export function countArabicLetters(text: string): number {
  return text.match(ARABIC_LETTER)?.length ?? 0;
}

/** Number of letters of any script in `text`. */
export function countLetters(text: string): number {
  return text.match(ANY_LETTER)?.length ?? 0;
}

/** Share of the letters of `text` that are Arabic, in [0, 1]; 0 when the text has no letters at all. */
export function arabicShare(text: string): number {
  const letters = countLetters(text);
  return letters === 0 ? 0 : countArabicLetters(text) / letters;
}

/**
 * True when at least `minShare` of the letters are Arabic (default 0.5). Digits, punctuation and
 * diacritics are ignored, so "١٢٣" or "..." (no letters) is not Arabic text.
 */
export function isMostlyArabic(text: string, minShare = 0.5): boolean {
  if (!(minShare >= 0 && minShare <= 1)) throw new RangeError(`isMostlyArabic: minShare must be in [0, 1], got ${minShare}`);
  const letters = countLetters(text);
  if (letters === 0) return false;
  return countArabicLetters(text) / letters >= minShare;
}

// ---------------------------------------------------------------------------------------------
// Diacritics and tatweel
// ---------------------------------------------------------------------------------------------

/** Inclusive code-point ranges. */
export type CodePointRanges = ReadonlyArray<readonly [number, number]>;

/** Tatweel (kashida, U+0640): a stretching stroke, never part of the spelling. */
export const TATWEEL = '\u0640';

/**
 * The full diacritic set (error categories, retrieval match keys): Quranic honorific and annotation signs
 * U+0610–061A, harakat, tanwin, shadda, sukun and the other combining marks U+064B–065F, the superscript
 * alef U+0670, and the Quranic annotation marks U+06D6–06DC, U+06DF–06E8, U+06EA–06ED. No tatweel.
 */
export const ARABIC_DIACRITICS: CodePointRanges = Object.freeze([
  [0x0610, 0x061a],
  [0x064b, 0x065f],
  [0x0670, 0x0670],
  [0x06d6, 0x06dc],
  [0x06df, 0x06e8],
  [0x06ea, 0x06ed],
] as const);

/**
 * The narrower set of the OpenITI duplicate key: harakat, tanwin, shadda, sukun and the combining marks
 * U+064B–065F, the superscript alef U+0670 — and the tatweel. It differs from ARABIC_DIACRITICS (no
 * U+0610–061A, no Quranic annotation marks, plus tatweel) because the corpus build hashes this key in its
 * parser's hot loop (src/openiti/line-parser.ts) and records which lines were duplicates: widening the set would
 * change which sentences a rebuilt corpus keeps.
 */
export const HARAKAT_AND_TATWEEL: CodePointRanges = Object.freeze([
  [0x064b, 0x065f],
  [0x0670, 0x0670],
  [0x0640, 0x0640],
] as const);

const hex = (cp: number) => `\\u${cp.toString(16).padStart(4, '0')}`;

/** A character class matching the given ranges (BMP only), e.g. `[\u064b-\u065f\u0670]`. */
function rangeClass(ranges: CodePointRanges): string {
  return `[${ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
}

function inRanges(ranges: CodePointRanges, cp: number): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}

const DIACRITICS_RE = new RegExp(rangeClass(ARABIC_DIACRITICS), 'gu');
const TATWEEL_RE = /\u0640/gu;
const HARAKAT_AND_TATWEEL_RE = new RegExp(rangeClass(HARAKAT_AND_TATWEEL), 'g');

/** True when a code point is in ARABIC_DIACRITICS (the set `removeDiacritics` removes). */
export function isArabicDiacritic(cp: number): boolean {
  return inRanges(ARABIC_DIACRITICS, cp);
}

/** Remove every ARABIC_DIACRITICS character (tatweel stays). */
export function removeDiacritics(s: string): string {
  return s.replace(DIACRITICS_RE, '');
}

/** Remove the tatweel. */
export function removeTatweel(s: string): string {
  return s.replace(TATWEEL_RE, '');
}

/** Remove the HARAKAT_AND_TATWEEL characters: the OpenITI duplicate key (vocalised copies are duplicates). */
export function stripHarakatAndTatweel(s: string): string {
  return s.replace(HARAKAT_AND_TATWEEL_RE, '');
}

// ---------------------------------------------------------------------------------------------
// Letter unification and orthographic normalisation
// ---------------------------------------------------------------------------------------------

const ALEF_RE = /[\u0622\u0623\u0625\u0671]/gu;

/** أ إ آ ٱ → ا */
export function unifyAlef(s: string): string {
  return s.replace(ALEF_RE, '\u0627');
}

/** ى (alef maqsura) → ي */
export function unifyYaa(s: string): string {
  return s.replaceAll('\u0649', '\u064a');
}

/** ة (taa marbuta) → ه */
export function unifyTaaMarbuta(s: string): string {
  return s.replaceAll('\u0629', '\u0647');
}

/** Hamza seats ؤ → و and ئ → ي (editions and OCR disagree on them; used by the retrieval match keys only). */
export function unifyHamzaSeats(s: string): string {
  return s.replaceAll('\u0624', '\u0648').replaceAll('\u0626', '\u064a');
}

/** Arabic orthographic normalisation switches: the retrieval match keys (src/retrieval/text.ts). Scoring uses ./profiles. */
export interface ArabicNormalization {
  /** Remove harakat, tanwin, shadda, sukun, superscript alef and Quranic annotation marks (ARABIC_DIACRITICS). */
  remove_diacritics: boolean;
  /** Remove tatweel (kashida, U+0640). */
  remove_tatweel: boolean;
  /** أ إ آ ٱ → ا */
  unify_alef: boolean;
  /** ى → ي */
  unify_yaa: boolean;
  /** ة → ه */
  unify_taa_marbuta: boolean;
}

/** Every rule on: the retrieval match keys and the verbatim-gold test. */
export const DEFAULT_ARABIC_NORMALIZATION: Readonly<ArabicNormalization> = Object.freeze({
  remove_diacritics: true,
  remove_tatweel: true,
  unify_alef: true,
  unify_yaa: true,
  unify_taa_marbuta: true,
});

/**
 * The enabled rules, in the order they apply (missing keys take the default), on the NFC form of `s` (so a
 * decomposed hamza, alef + U+0654, is أ before the alef rule, never a bare alef by losing a "diacritic").
 */
export function normalizeOrthography(s: string, opts: Partial<ArabicNormalization> = DEFAULT_ARABIC_NORMALIZATION): string {
  const o = { ...DEFAULT_ARABIC_NORMALIZATION, ...opts };
  let t = s.normalize('NFC');
  if (o.remove_diacritics) t = removeDiacritics(t);
  if (o.remove_tatweel) t = removeTatweel(t);
  if (o.unify_alef) t = unifyAlef(t);
  if (o.unify_yaa) t = unifyYaa(t);
  if (o.unify_taa_marbuta) t = unifyTaaMarbuta(t);
  return t;
}

/** Orthographic normalisation followed by the canonical form (./canonical: trim, whitespace runs collapsed unless told not to). */
export function normalizeArabic(
  s: string,
  opts: Partial<ArabicNormalization> = DEFAULT_ARABIC_NORMALIZATION,
  collapseWhitespace = true,
): string {
  return canonical(normalizeOrthography(s, opts), collapseWhitespace);
}

// ---------------------------------------------------------------------------------------------
// Letter classes of OCR errors: dot-only groups, hamza/alef forms, lam-alef
// ---------------------------------------------------------------------------------------------

/** Letters that share a skeleton (rasm) and differ only in dots, one string per group. */
export const DOT_GROUPS = ['بتثني', 'جحخ', 'دذ', 'رز', 'سش', 'صض', 'طظ', 'عغ', 'فق'] as const;

const DOT_GROUP_OF = new Map<string, number>();
DOT_GROUPS.forEach((g, k) => {
  for (const c of g) DOT_GROUP_OF.set(c, k);
});

/** Index into DOT_GROUPS of a letter, or undefined when it is in none. */
export function dotGroupOf(c: string): number | undefined {
  return DOT_GROUP_OF.get(c);
}

/** Hamza forms (on alef, waw, ya, alone) and the alef variants ٱ آ that OCR confuses with them. */
export const HAMZA_FORMS: ReadonlySet<string> = new Set([...'أإآٱءؤئ']);
/** The bare seats a hamza form is confused with. */
export const HAMZA_SEATS: ReadonlySet<string> = new Set([...'اويى']);

/** A substitution between hamza/alef forms (at least one side a hamza form), or a hamza form added or lost. */
export function isHamzaAlefEdit(ref: string, hyp: string): boolean {
  if (ref === '' || hyp === '') return HAMZA_FORMS.has(ref || hyp);
  const forms = [ref, hyp];
  return forms.some((c) => HAMZA_FORMS.has(c)) && forms.every((c) => HAMZA_FORMS.has(c) || HAMZA_SEATS.has(c));
}

export const LAM = '\u0644';
/** Alef forms that join a preceding lam into the lam-alef ligature (لا لأ لإ لآ). */
const LIGATURE_ALEFS: ReadonlySet<string> = new Set([...'اأإآ']);

/** True when `alef` (a code point string) joins a preceding lam into one lam-alef ligature. */
export function isLigatureAlef(alef: string): boolean {
  return LIGATURE_ALEFS.has(alef);
}

/** The error classes of the report's confusion table, in display order. */
export const ERROR_CLASSES = [
  'dots_ba',
  'dots_jim',
  'dots_dal',
  'dots_ra',
  'dots_sin',
  'dots_sad',
  'dots_ta',
  'dots_ain',
  'dots_fa',
  'diacritics',
  'hamza_alef',
  'whitespace',
  'other',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Human label of an error class ("dots ب ت ث ن ي", "hamza/alef forms", …). */
export function errorClassLabel(c: ErrorClass): string {
  const k = ERROR_CLASSES.indexOf(c);
  if (k < DOT_GROUPS.length) return `dots ${[...DOT_GROUPS[k]].join(' ')}`;
  return { diacritics: 'diacritics', hamza_alef: 'hamza/alef forms', whitespace: 'whitespace', other: 'other' }[c as 'other'];
}

/**
 * Class of one character edit (`ref` gold, `hyp` output; '' = the missing side): whitespace, diacritics
 * (and tatweel), hamza/alef forms, a substitution within one dot-only group, else other. First match wins.
 */
export function errorClassOf(ref: string, hyp: string): ErrorClass {
  const both = [ref, hyp].filter((c) => c !== '');
  if (both.some((c) => /\s/u.test(c))) return 'whitespace';
  if (both.some((c) => c === TATWEEL || isArabicDiacritic(c.codePointAt(0)!))) return 'diacritics';
  if (isHamzaAlefEdit(ref, hyp)) return 'hamza_alef';
  const g = ref !== '' && hyp !== '' ? dotGroupOf(ref) : undefined;
  if (g !== undefined && g === dotGroupOf(hyp)) return ERROR_CLASSES[g];
  return 'other';
}
