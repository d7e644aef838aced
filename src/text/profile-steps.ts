/**
 * A normalisation profile's steps compiled once (the order is stated in ./profiles.ts): NFC, case folding,
 * removals, string replacements, character-class replacements, then the canonical form (./canonical).
 */
import { canonical } from './canonical';

/** Every character of `class` becomes `with` (a class: `\p{…}`, `\P{…}`, `\w`, `\W`, `\d`, `\s`, `[…]`, or one character). */
export interface ClassReplacement {
  class: string;
  with: string;
}

export interface CompiledSteps {
  apply: (text: string, collapseWhitespace: boolean) => string;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/gu, '\\$&');
const cpEscape = (cp: number) => `\\u{${cp.toString(16)}}`;

/**
 * JavaScript's `\w`, `\W` and `\d` are ASCII-only even with the `u` flag; here they mean what Python's `re` means
 * on text (a letter, a digit or `_`; a decimal digit), so a benchmark's rule reads the same.
 */
const STANDALONE: Record<string, string> = {
  '\\w': '[\\p{L}\\p{N}_]',
  '\\W': '[^\\p{L}\\p{N}_]',
  '\\d': '\\p{Nd}',
  '\\D': '\\P{Nd}',
  '\\s': '\\s',
};
const IN_BRACKETS: Record<string, string> = { '\\w': '\\p{L}\\p{N}_', '\\d': '\\p{Nd}' };
const PROPERTY_RE = /^\\[pP]\{[A-Za-z_=]+\}$/u;

function classSource(cls: string): string {
  if ([...cls].length === 1) return escapeRe(cls.normalize('NFC'));
  if (STANDALONE[cls]) return STANDALONE[cls];
  if (PROPERTY_RE.test(cls)) return cls;
  if (cls.startsWith('[') && cls.endsWith(']') && cls.length > 2) {
    if (/\\[WD]/u.test(cls)) throw new SyntaxError(`"${cls}": \\W and \\D are not allowed inside brackets (write [^\\w] or \\W)`);
    return cls.replace(/\\[wd]/gu, (k) => IN_BRACKETS[k]);
  }
  throw new SyntaxError(`"${cls}": expected a character class (\\p{P}, \\W, [^\\w]) or one character`);
}

/** The regular expression of one class; throws a one-line error when it is not one. */
export function classRegExp(cls: string): RegExp {
  const src = classSource(cls);
  try {
    return new RegExp(src, 'gu');
  } catch (e) {
    throw new SyntaxError(`"${cls}": ${(e as Error).message}`);
  }
}

export function compileSteps(
  ranges: Array<[number, number]>,
  mapping: Record<string, string>,
  caseFold: boolean,
  replace: readonly ClassReplacement[],
): CompiledSteps {
  const cls = ranges.map(([lo, hi]) => (lo === hi ? cpEscape(lo) : `${cpEscape(lo)}-${cpEscape(hi)}`)).join('');
  const removeRe = cls ? new RegExp(`[${cls}]`, 'gu') : null;
  const map = new Map(Object.entries(mapping).map(([from, to]) => [from.normalize('NFC'), to.normalize('NFC')]));
  const sources = [...map.keys()].filter((k) => k !== '').sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const mapRe = sources.length ? new RegExp(sources.map(escapeRe).join('|'), 'gu') : null;
  const classes = replace.map((r): [RegExp, string] => [classRegExp(r.class), r.with]);
  const plain = !caseFold && !removeRe && !mapRe && classes.length === 0;
  return {
    apply: (text, collapseWhitespace) => {
      if (plain) return canonical(text, collapseWhitespace);
      let t = text.normalize('NFC');
      if (caseFold) t = t.toLowerCase();
      if (removeRe) t = t.replace(removeRe, '');
      if (mapRe) t = t.replace(mapRe, (m) => map.get(m)!);
      for (const [re, to] of classes) t = t.replace(re, to);
      return canonical(t, collapseWhitespace);
    },
  };
}
