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
  const map = (ws: string[]) => {
    const out = new Int32Array(ws.length);
    for (let i = 0; i < ws.length; i++) {
      let id = ids.get(ws[i]);
      if (id === undefined) {
        id = ids.size;
        ids.set(ws[i], id);
      }
      out[i] = id;
    }
    return out;
  };
  return [map(ref), map(hyp)];
}
