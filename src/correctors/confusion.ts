/**
 * The OCR error model of the lexicon corrector: how often the OCR turns a gold character into another, drops it,
 * or inserts one, learned from OCR/gold line pairs (the dev split's). Both lines are taken as lexicon keys
 * (./lexicon-key.ts) and aligned with the alignment behind CER (src/text/alignment.ts); every aligned gold
 * character counts once (kept, substituted or deleted) and every inserted OCR character once. Probabilities are
 * add-α smoothed over the characters seen, so an edit never seen is rare, not impossible.
 */
import { alignSequences, SPACE } from '../text/distance';
import { toCodePoints } from '../text/tokens';
import { lexiconKey } from './lexicon-key';

const SMOOTHING = 0.5;
const GAP = -1;

export class ConfusionModel {
  /** count[gold][ocr]: gold → ocr (GAP for a deletion); inserted[ocr]: OCR characters with no gold. */
  private readonly count = new Map<number, Map<number, number>>();
  private readonly gold = new Map<number, number>();
  private readonly inserted = new Map<number, number>();
  private goldTotal = 0;
  private alphabet = new Set<number>();

  /** Learn from one OCR/gold line pair. */
  add(ocr: string, gold: string): void {
    const g = toCodePoints(lexiconKey(gold));
    const o = toCodePoints(lexiconKey(ocr));
    const { ops } = alignSequences(g, o, { ops: true, separator: SPACE });
    const read = Array.from(g, (c) => c as number);
    for (const op of ops!) {
      if (op.type === 'S') read[op.ref] = o[op.hyp];
      else if (op.type === 'D') read[op.ref] = GAP;
      else this.inserted.set(o[op.hyp], (this.inserted.get(o[op.hyp]) ?? 0) + 1);
    }
    g.forEach((c, i) => this.note(c, read[i]));
    this.goldTotal += g.length;
  }

  private note(gold: number, ocr: number): void {
    this.alphabet.add(gold);
    let row = this.count.get(gold);
    if (!row) this.count.set(gold, (row = new Map()));
    row.set(ocr, (row.get(ocr) ?? 0) + 1);
    this.gold.set(gold, (this.gold.get(gold) ?? 0) + 1);
  }

  /** log P(OCR reads `ocr` | gold `gold`); `ocr` = null for a deletion. */
  logSub(gold: number, ocr: number | null): number {
    const k = this.alphabet.size + 1;
    const n = this.gold.get(gold) ?? 0;
    const c = this.count.get(gold)?.get(ocr ?? GAP) ?? 0;
    return Math.log((c + SMOOTHING) / (n + SMOOTHING * k));
  }

  /** log P(the OCR inserts `ocr`), per gold character. */
  logIns(ocr: number): number {
    const k = this.alphabet.size + 1;
    return Math.log(((this.inserted.get(ocr) ?? 0) + SMOOTHING) / (this.goldTotal + SMOOTHING * k));
  }

  /** log P(OCR word | intended word), both lexicon keys, over their alignment. */
  logChannel(ocrWord: string, intended: string): number {
    const g = toCodePoints(intended);
    const o = toCodePoints(ocrWord);
    const { ops } = alignSequences(g, o, { ops: true });
    const read: (number | null)[] = Array.from(g, (c) => c as number);
    let logp = 0;
    for (const op of ops!) {
      if (op.type === 'S') read[op.ref] = o[op.hyp];
      else if (op.type === 'D') read[op.ref] = null;
      else logp += this.logIns(o[op.hyp]);
    }
    g.forEach((c, i) => (logp += this.logSub(c, read[i])));
    return logp;
  }

  /** Gold characters learned from (for the record of what the model saw). */
  get characters(): number {
    return this.goldTotal;
  }
}
