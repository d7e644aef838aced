/**
 * The `lexicon` corrector (docs/correctors.md): a noisy-channel word corrector. For each word of the OCR line
 * (./lexicon-key.ts), a word seen at least `min_count` times in the arm's corpus stays as it is (in vocabulary).
 * Any other word — a non-word, or one too rare to trust — is compared with the vocabulary words within edit
 * distance 2 (./symmetric-delete.ts) and replaced by the candidate c that maximises
 *     log P(c) + log P(ocr word | c)
 * (the corpus frequency, ./vocabulary.ts, and the OCR error model, ./confusion.ts), when that beats keeping the
 * word (the same score for the word itself) by more than `margin` nats. Punctuation around a word stays; a
 * replaced word is written as its key (diacritics and tatweel folded). Both settings are chosen on the dev split
 * (bench/baselines.ts chooses them).
 */
import { canonical } from '../text/canonical';
import type { ConfusionModel } from './confusion';
import { splitToken, wordKey } from './lexicon-key';
import type { Vocabulary } from './vocabulary';

export const LEXICON_VERSION = '1';
export const LEXICON_MODEL = `lexicon@${LEXICON_VERSION}`;

export interface LexiconSettings {
  /** Corpus count from which a word is trusted as written (and may be proposed). */
  min_count: number;
  /** How much more likely (nats of log probability) the best candidate must be than the word as written. */
  margin: number;
}

/**
 * Chosen on the dev split of OCR_GS by bench/baselines.ts, with the vocabulary of the whole OpenITI slice (21 M
 * tokens; the dev CER is nearly flat in min_count from 5 to 100). A much smaller corpus wants a smaller min_count.
 */
export const DEFAULT_LEXICON_SETTINGS: Readonly<LexiconSettings> = Object.freeze({ min_count: 100, margin: 0 });

export interface LexiconModel {
  vocabulary: Vocabulary;
  confusion: ConfusionModel;
}

/** One replaced word. */
export interface WordChange {
  from: string;
  to: string;
  /** Corpus count of the word as written (0: a non-word). */
  count: number;
}

export interface LexiconDecision {
  text: string;
  /** Words looked at (Arabic-letter words of the line). */
  words: number;
  /** Words left as written because the corpus knows them. */
  in_vocabulary: number;
  changes: WordChange[];
}

/** The best candidate for a word and how much more likely it is than the word as written (nats); null: none. */
export function bestCandidate(key: string, model: LexiconModel, minCount: number): { word: string; gain: number } | null {
  const memo = memoOf(model);
  const id = `${minCount}:${key}`;
  if (memo.has(id)) return memo.get(id)!;
  const { vocabulary: v, confusion: c } = model;
  const keep = v.logPrior(key) + c.logChannel(key, key);
  let best: { word: string; gain: number } | null = null;
  for (const cand of v.candidateIndex(minCount).candidates(key)) {
    if (cand.word === key) continue;
    const gain = v.logPrior(cand.word) + c.logChannel(key, cand.word) - keep;
    if (!best || gain > best.gain || (gain === best.gain && cand.word < best.word)) best = { word: cand.word, gain };
  }
  memo.set(id, best);
  return best;
}

/** Best candidates already scored, per model (a line's words recur across lines, and settings are tried in turn). */
const memos = new WeakMap<LexiconModel, Map<string, { word: string; gain: number } | null>>();
function memoOf(model: LexiconModel): Map<string, { word: string; gain: number } | null> {
  let m = memos.get(model);
  if (!m) memos.set(model, (m = new Map()));
  return m;
}

/** Correct one OCR line word by word. */
export function lexiconCorrectLine(
  ocr: string,
  model: LexiconModel,
  settings: LexiconSettings = DEFAULT_LEXICON_SETTINGS,
): LexiconDecision {
  const tokens = canonical(ocr).split(' ');
  const changes: WordChange[] = [];
  let words = 0;
  let known = 0;
  const out = tokens.map((t) => {
    const { lead, core, trail } = splitToken(t);
    const key = wordKey(core);
    if (key === null) return t;
    words++;
    const count = model.vocabulary.count(key);
    if (count >= settings.min_count) {
      known++;
      return t;
    }
    const best = bestCandidate(key, model, settings.min_count);
    if (best === null || best.gain <= settings.margin) return t;
    changes.push({ from: core, to: best.word, count });
    return lead + best.word + trail;
  });
  return { text: out.join(' '), words, in_vocabulary: known, changes };
}
