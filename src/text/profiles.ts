/**
 * Normalisation profiles: named rule sets that bring a text, after its canonical form (./canonical: NFC and
 * whitespace), to the form one figure is computed on. The analysis scores every figure under its primary profile
 * (`analysis.normalization.primary`, default `nfc`) and reports the secondary profiles side by side, each with
 * its rules in words. A profile
 *   - removes characters (`remove`: single characters or code-point ranges written `U+064B-U+065F`),
 *   - then replaces strings (`map`: from → to, longest first; both sides taken in NFC),
 *   - and counts characters as code points or as extended grapheme clusters (`unit`).
 * Built in (docs/normalization-profiles.md):
 *   - `nfc`: the canonical form only;
 *   - `no_diacritics`: KITAB-Bench's convention — tashkeel U+064B–U+065F and the superscript alef U+0670 and the
 *     tatweel U+0640 removed, آ أ إ ٱ → ا, ة → ه, ى → ي;
 *   - `graphemes`: the canonical form, CER counted over extended grapheme clusters (dinglehopper's convention:
 *     a letter with its marks is one character);
 *   - `hipe2026`: the rules of the HIPE-OCRepair 2026 scorer (docs/normalization-profiles.md#hipe2026).
 * A user adds a profile in the config (`analysis.normalization.profiles.<name>: {rules, remove, map, unit}`).
 */
import { compileSteps, type ClassReplacement, type CompiledSteps } from './profile-steps';

export type ProfileUnit = 'codepoint' | 'grapheme';

/** A profile as data (it is written into the analysis documents as it is). */
export interface NormalizationProfile {
  name: string;
  /** The rules in words, shown beside every figure computed under the profile. */
  rules: string;
  /** Characters removed: one character each, or a code-point range `U+XXXX-U+YYYY` (or one `U+XXXX`). */
  remove: string[];
  /** Replacements applied after removal, longest source first. */
  map: Record<string, string>;
  unit: ProfileUnit;
  /** Lower-case before the other steps (absent = no). */
  case_fold?: boolean;
  /** Character-class replacements, applied after `map`, in order (absent = none). */
  replace?: ClassReplacement[];
}

export const BUILTIN_PROFILES: Readonly<Record<string, NormalizationProfile>> = Object.freeze({
  nfc: {
    name: 'nfc',
    rules: 'Unicode NFC; whitespace trimmed and runs collapsed; CER over code points',
    remove: [],
    map: {},
    unit: 'codepoint',
  },
  no_diacritics: {
    name: 'no_diacritics',
    rules:
      'NFC; tashkeel U+064B–U+065F, superscript alef U+0670 and tatweel U+0640 removed; آ أ إ ٱ → ا; ة → ه; ى → ي (KITAB-Bench); CER over code points',
    remove: ['U+064B-U+065F', 'U+0670', 'U+0640'],
    map: { آ: 'ا', أ: 'ا', إ: 'ا', ٱ: 'ا', ة: 'ه', ى: 'ي' },
    unit: 'codepoint',
  },
  graphemes: {
    name: 'graphemes',
    rules: 'NFC; CER over extended grapheme clusters (a letter with its marks counts once; dinglehopper)',
    remove: [],
    map: {},
    unit: 'grapheme',
  },
  hipe2026: {
    name: 'hipe2026',
    rules:
      'HIPE-OCRepair 2026 scorer: NFC; lower-cased; ß → ss, ꝛ → r, œ → oe, æ → ae, aͤ → ä, oͤ → ö, uͤ → ü; every character that is not a letter, digit or _ → space, _ → space; whitespace collapsed; code points',
    remove: [],
    map: { ß: 'ss', ꝛ: 'r', œ: 'oe', æ: 'ae', 'a\u0364': 'ä', 'o\u0364': 'ö', 'u\u0364': 'ü', '—\n': '', '¬\n': '' },
    unit: 'codepoint',
    case_fold: true,
    replace: [
      { class: '\\W', with: ' ' },
      { class: '_', with: ' ' },
    ],
  },
});

export const DEFAULT_PRIMARY_PROFILE = 'nfc';
export const DEFAULT_SECONDARY_PROFILES: readonly string[] = Object.freeze(['no_diacritics', 'graphemes']);

const RANGE_RE = /^U\+([0-9A-Fa-f]{4,6})(?:-U\+([0-9A-Fa-f]{4,6}))?$/u;

/** The code points a `remove` entry names, as [lo, hi]; throws a one-line error on a malformed entry. */
export function removeRange(entry: string): [number, number] {
  const m = RANGE_RE.exec(entry);
  if (m) {
    const lo = parseInt(m[1], 16);
    const hi = m[2] ? parseInt(m[2], 16) : lo;
    if (lo > hi || hi > 0x10ffff) throw new RangeError(`"${entry}": expected U+XXXX-U+YYYY with XXXX <= YYYY <= 10FFFF`);
    return [lo, hi];
  }
  const cps = [...entry.normalize('NFC')];
  if (cps.length !== 1) throw new RangeError(`"${entry}": expected one character or a code-point range U+XXXX-U+YYYY`);
  const cp = cps[0].codePointAt(0)!;
  return [cp, cp];
}

/** The same profile object compiles to the same result: looked up by identity before its key is made. */
const compiledObjects = new WeakMap<NormalizationProfile, CompiledSteps>();

function compile(p: NormalizationProfile): CompiledSteps {
  let c = compiledObjects.get(p);
  if (!c) compiledObjects.set(p, (c = compileSteps(p.remove.map(removeRange), p.map, p.case_fold === true, p.replace ?? [])));
  return c;
}

/** What decides a profile's scoring form (two profiles with the same key prepare every text alike). */
export function textFormKey(p: NormalizationProfile): string {
  return JSON.stringify([p.remove, p.map, p.case_fold === true, p.replace ?? []]);
}

/** A text in the form `profile` scores it: the steps above, in that order. */
export function applyProfile(text: string, profile: NormalizationProfile, collapseWhitespace = true): string {
  return compile(profile).apply(text, collapseWhitespace);
}

/** One line naming a profile and its rules ("no_diacritics: NFC; tashkeel … removed"). */
export function profileLabel(p: NormalizationProfile): string {
  return `${p.name}: ${p.rules}`;
}

/** The profiles a study scores with: the primary one (every figure) and the secondary ones (reported beside). */
export interface NormalizationSettings {
  primary: NormalizationProfile;
  secondary: NormalizationProfile[];
}

/** What the config's `analysis.normalization` holds. */
export interface NormalizationConfig {
  primary?: string;
  secondary?: string[];
  profiles?: Record<
    string,
    Omit<NormalizationProfile, 'name' | 'remove' | 'map' | 'unit'> & Partial<Pick<NormalizationProfile, 'remove' | 'map' | 'unit'>>
  >;
}

/** A bad `analysis.normalization` setting: the key path below it and what is wrong, in one line. */
export class NormalizationConfigError extends Error {
  constructor(
    readonly field: Array<string | number>,
    readonly detail: string,
  ) {
    super(`analysis.normalization.${field.join('.')}: ${detail}`);
  }
}

/**
 * Resolve names to profiles (user profiles beside the built-in ones; a user profile may not reuse a built-in
 * name). The primary profile counts code points: the error classes align code points.
 */
export function resolveNormalization(cfg: NormalizationConfig | null | undefined): NormalizationSettings {
  const all = new Map(Object.entries(BUILTIN_PROFILES));
  for (const [name, p] of Object.entries(cfg?.profiles ?? {})) {
    if (all.has(name)) throw new NormalizationConfigError(['profiles', name], `"${name}" is a built-in profile; choose another name`);
    p.remove?.forEach((r, i) => {
      try {
        removeRange(r);
      } catch (e) {
        throw new NormalizationConfigError(['profiles', name, 'remove', i], (e as Error).message);
      }
    });
    p.replace?.forEach((r, i) => {
      try {
        compileSteps([], {}, false, [r]);
      } catch (e) {
        throw new NormalizationConfigError(['profiles', name, 'replace', i, 'class'], (e as Error).message);
      }
    });
    const extra = { ...(p.case_fold !== undefined ? { case_fold: p.case_fold } : {}), ...(p.replace ? { replace: p.replace } : {}) };
    all.set(name, { name, rules: p.rules, remove: p.remove ?? [], map: p.map ?? {}, unit: p.unit ?? 'codepoint', ...extra });
  }
  const get = (n: string, field: Array<string | number>) => {
    const p = all.get(n);
    if (!p) throw new NormalizationConfigError(field, `unknown profile "${n}" — the profiles are: ${[...all.keys()].join(', ')}`);
    return p;
  };
  const primary = get(cfg?.primary ?? DEFAULT_PRIMARY_PROFILE, ['primary']);
  if (primary.unit !== 'codepoint')
    throw new NormalizationConfigError(
      ['primary'],
      `profile "${primary.name}" counts grapheme clusters; the primary profile must count code points (list it under secondary)`,
    );
  const names = cfg?.secondary ?? DEFAULT_SECONDARY_PROFILES;
  const secondary = names.map((n, i) => get(n, ['secondary', i])).filter((p, i) => p.name !== primary.name && names.indexOf(p.name) === i);
  return { primary, secondary };
}
