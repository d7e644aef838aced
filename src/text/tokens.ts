/**
 * The tokens of a text in canonical form (./canonical): what CER / WER (./distance) count. Characters are
 * Unicode code points (as in Python), words are whitespace-separated tokens.
 */

/** Code points of a string (not UTF-16 units, so astral characters count once, as in Python). */
export function toCodePoints(s: string): Int32Array {
  const out = new Int32Array(s.length);
  let n = 0;
  for (const ch of s) out[n++] = ch.codePointAt(0)!;
  return n === s.length ? out : out.slice(0, n);
}

/** Whitespace-separated tokens of a scoring-form text (runs of whitespace separate once; '' → no tokens). */
export function toWords(s: string): string[] {
  return s === '' ? [] : s.split(/\s+/u).filter((w) => w !== '');
}

/** Map two token lists to integer ids so words align with the same routine as characters. */
export function wordIds(ref: string[], hyp: string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  return [idsOf(ref, ids), idsOf(hyp, ids)];
}

/** The ids of `words` in `ids` (a word not there gets the next one): lists mapped with one `ids` compare word by word. */
export function idsOf(words: string[], ids: Map<string, number>): Int32Array {
  const out = new Int32Array(words.length);
  for (let i = 0; i < words.length; i++) {
    let id = ids.get(words[i]);
    if (id === undefined) {
      id = ids.size;
      ids.set(words[i], id);
    }
    out[i] = id;
  }
  return out;
}
