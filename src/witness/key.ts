/**
 * The witness matching key: what an OCR line and a work's text are compared on.
 *
 * Profile (stated for every figure of witness retrieval): NFC, then only letters are kept — diacritics
 * (ARABIC_DIACRITICS), tatweel, whitespace, digits and punctuation are dropped, so a word split or merged by
 * the OCR costs nothing — and the letters are unified as the retrieval match keys unify them (أ إ آ ٱ → ا,
 * ى → ي, ة → ه, ؤ → و, ئ → ي; Latin lower-cased). Each kept character is one UTF-16 code unit; letters
 * outside the BMP (none in Arabic) are dropped.
 *
 * `keyWithOffsets` also records, for each key character, where it came from in the NFC text, so an aligned
 * key span maps back to the edition's own characters (with their diacritics) for the prompt.
 */
import { isArabicDiacritic, TATWEEL } from '../text/arabic';

const UNIFY: Record<string, string> = {
  '\u0622': '\u0627',
  '\u0623': '\u0627',
  '\u0625': '\u0627',
  '\u0671': '\u0627',
  '\u0649': '\u064a',
  '\u0629': '\u0647',
  '\u0624': '\u0648',
  '\u0626': '\u064a',
};
const LETTER = /\p{L}/u;

/** Key code unit of one NFC code unit, or -1 when the character is not part of the key. */
function keyUnit(ch: string): number {
  const cp = ch.charCodeAt(0);
  if (cp >= 0xd800 && cp <= 0xdfff) return -1; // astral: dropped (see module comment)
  if (ch === TATWEEL || isArabicDiacritic(cp)) return -1;
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp >= 0x61 && cp <= 0x7a ? cp : -1;
  if (!LETTER.test(ch)) return -1;
  const u = UNIFY[ch];
  return u === undefined ? ch.toLowerCase().charCodeAt(0) : u.charCodeAt(0);
}

const unitCache = new Map<number, number>();
function cachedKeyUnit(ch: string): number {
  const cp = ch.charCodeAt(0);
  let v = unitCache.get(cp);
  if (v === undefined) {
    v = keyUnit(ch);
    unitCache.set(cp, v);
  }
  return v;
}

/** The key of `text` as code units (see module comment for the profile). */
export function witnessKey(text: string): Uint16Array {
  return keyWithOffsets(text).key;
}

/** The key as a string (for tests and figures). */
export function witnessKeyString(text: string): string {
  return String.fromCharCode(...witnessKey(text));
}

/** The key with, per key character, its index in `nfc` (the NFC form of `text`, returned too). */
export function keyWithOffsets(text: string): { key: Uint16Array; from: Int32Array; nfc: string } {
  const nfc = text.normalize('NFC');
  const key = new Uint16Array(nfc.length);
  const from = new Int32Array(nfc.length);
  let n = 0;
  for (let i = 0; i < nfc.length; i++) {
    const u = cachedKeyUnit(nfc[i]);
    if (u < 0) continue;
    key[n] = u;
    from[n++] = i;
  }
  return { key: key.subarray(0, n), from: from.subarray(0, n), nfc };
}
