/**
 * Words as the lexicon corrector sees them. A word's key is its canonical form (src/text/canonical.ts) under the
 * profile LEXICON_KEY_PROFILE (src/text/profiles.ts applies it): tashkeel, the superscript alef and the tatweel
 * folded away, letters otherwise kept as they are (hamza seats, alef maqsura and taa marbuta are real spelling
 * differences the corrector may have to restore). A line is split on whitespace; a token's leading and trailing
 * non-letters (punctuation, brackets, digits) are kept aside, and only a core made of Arabic letters alone, at
 * least MIN_WORD_LETTERS long, is a word the corrector may look up.
 */
import { applyProfile, type NormalizationProfile } from '../text/profiles';

export const LEXICON_KEY_PROFILE: NormalizationProfile = Object.freeze({
  name: 'lexicon_key',
  rules: 'NFC; tashkeel U+064B–U+065F, superscript alef U+0670 and tatweel U+0640 removed; letters kept as written',
  remove: ['U+064B-U+065F', 'U+0670', 'U+0640'],
  map: {},
  unit: 'codepoint' as const,
});

export const MIN_WORD_LETTERS = 2;
const CORE = /^(\P{L}*)(\p{L}.*?\p{L}|\p{L})?(\P{L}*)$/u;
const ARABIC_WORD = /^(?:(?=\p{Script=Arabic})\p{L})+$/u;

/** The key of a word or text (canonical form, diacritics and tatweel folded). */
export function lexiconKey(text: string): string {
  return applyProfile(text, LEXICON_KEY_PROFILE);
}

/** A whitespace token split into its leading non-letters, its core and its trailing non-letters. */
export interface Token {
  lead: string;
  core: string;
  trail: string;
}

export function splitToken(token: string): Token {
  const m = CORE.exec(token);
  if (!m) return { lead: '', core: token, trail: '' };
  return { lead: m[1], core: m[2] ?? '', trail: m[3] };
}

/** The key of a token's core when it is a word the lexicon handles (Arabic letters only, long enough), else null. */
export function wordKey(core: string): string | null {
  if (!core) return null;
  const key = lexiconKey(core);
  return key.length >= MIN_WORD_LETTERS && ARABIC_WORD.test(key) ? key : null;
}

/** The word keys of a text (what a vocabulary counts). */
export function wordKeys(text: string): string[] {
  const out: string[] = [];
  for (const t of lexiconKey(text).split(' ')) {
    const k = wordKey(splitToken(t).core);
    if (k) out.push(k);
  }
  return out;
}
