/**
 * Candidate words within an edit distance of a word, by symmetric deletion (SymSpell, Garbe 2012): every
 * vocabulary word is indexed under each string obtained by deleting up to `maxDistance` of its characters; a
 * query's own deletions are looked up there, and each word found is checked with the project's Levenshtein
 * distance (src/text/levenshtein.ts). Hand-written: the npm SymSpell ports are unmaintained single releases
 * (docs/correctors.md says which and why).
 */
import { levenshtein } from '../text/levenshtein';
import { toCodePoints } from '../text/tokens';

/** Every string obtained from `word` by deleting 0..max characters (code points), the word itself included. */
export function deletions(word: string, max: number): Set<string> {
  const out = new Set<string>([word]);
  let frontier = [word];
  for (let d = 0; d < max; d++) {
    const next: string[] = [];
    for (const w of frontier) {
      const cps = Array.from(w);
      if (cps.length <= 1) continue;
      for (let i = 0; i < cps.length; i++) {
        const del = cps.slice(0, i).join('') + cps.slice(i + 1).join('');
        if (!out.has(del)) {
          out.add(del);
          next.push(del);
        }
      }
    }
    frontier = next;
  }
  return out;
}

export class SymmetricDeleteIndex {
  private readonly byDeletion = new Map<string, string[]>();

  constructor(
    words: Iterable<string>,
    readonly maxDistance = 2,
  ) {
    for (const w of words) {
      for (const d of deletions(w, maxDistance)) {
        const list = this.byDeletion.get(d);
        if (list) list.push(w);
        else this.byDeletion.set(d, [w]);
      }
    }
  }

  /** Indexed words within `maxDistance` edits of `word` (Levenshtein over code points), with their distance. */
  candidates(word: string): { word: string; distance: number }[] {
    const seen = new Set<string>();
    const out: { word: string; distance: number }[] = [];
    const q = toCodePoints(word);
    for (const d of deletions(word, this.maxDistance)) {
      for (const w of this.byDeletion.get(d) ?? []) {
        if (seen.has(w)) continue;
        seen.add(w);
        const distance = levenshtein(q, toCodePoints(w));
        if (distance <= this.maxDistance) out.push({ word: w, distance });
      }
    }
    return out;
  }
}
