/**
 * The lexicon corrector's vocabulary: word keys (./lexicon-key.ts) with their frequencies in the arm's corpus, and
 * the candidate index (./symmetric-delete.ts) over the words frequent enough to be proposed.
 */
import { wordKeys } from './lexicon-key';
import { SymmetricDeleteIndex } from './symmetric-delete';

/** Most words the candidate index holds (the most frequent ones), which bounds its memory (~15 deletions a word). */
export const MAX_CANDIDATE_WORDS = 200_000;

export class Vocabulary {
  readonly counts = new Map<string, number>();
  total = 0;
  private index: { minCount: number; index: SymmetricDeleteIndex } | null = null;

  /** Count the words of one corpus text. */
  addText(text: string): void {
    for (const w of wordKeys(text)) {
      this.counts.set(w, (this.counts.get(w) ?? 0) + 1);
      this.total++;
    }
    this.index = null;
  }

  count(word: string): number {
    return this.counts.get(word) ?? 0;
  }

  /** log P(word), add-one smoothed over the vocabulary. */
  logPrior(word: string): number {
    return Math.log((this.count(word) + 1) / (this.total + this.counts.size + 1));
  }

  /** The candidate index over words seen at least `minCount` times (at most MAX_CANDIDATE_WORDS of them). */
  candidateIndex(minCount: number): SymmetricDeleteIndex {
    if (this.index?.minCount !== minCount) {
      const words = [...this.counts].filter(([, c]) => c >= minCount);
      words.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      this.index = { minCount, index: new SymmetricDeleteIndex(words.slice(0, MAX_CANDIDATE_WORDS).map(([w]) => w)) };
    }
    return this.index.index;
  }
}
