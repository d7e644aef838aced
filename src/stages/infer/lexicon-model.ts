/**
 * The lexicon corrector's model for a study arm (docs/correctors.md): the vocabulary of the arm's corpus.jsonl
 * (its `text` lines: the OpenITI sample, with any works the arm's corpus block adds) and the OCR confusion model
 * of the dev split of the arm's input — every line whose position in its dataset (input order, from 0) is a
 * multiple of 5, as bench/dev-split.ts declares for OCR_GS. Built once per worker process and pair of files
 * (their paths and modification times), then shared by the arm's shards there.
 */
import { existsSync, statSync } from 'node:fs';
import { ConfusionModel } from '../../correctors/confusion';
import type { LexiconModel } from '../../correctors/lexicon';
import { Vocabulary } from '../../correctors/vocabulary';
import { readJsonl } from '../../io/jsonl';
import { UserInputError } from '../shared/types';

/** Lines of a dataset whose position is a multiple of this form the dev split the confusion model learns from. */
export const DEV_EVERY = 5;

const models = new Map<string, Promise<LexiconModel>>();

async function build(corpus: string, input: string): Promise<LexiconModel> {
  const vocabulary = new Vocabulary();
  for await (const { value } of readJsonl<{ text?: unknown }>(corpus)) if (typeof value.text === 'string') vocabulary.addText(value.text);
  const confusion = new ConfusionModel();
  const position = new Map<string, number>();
  for await (const { value: r } of readJsonl<{ dataset: string; ocr_text: string; gt_text: string }>(input)) {
    const i = position.get(r.dataset) ?? 0;
    position.set(r.dataset, i + 1);
    if (i % DEV_EVERY === 0 && r.gt_text) confusion.add(r.ocr_text, r.gt_text);
  }
  return { vocabulary, confusion };
}

/** The model of an arm's corpus and input (a missing file is a one-line error naming it). */
export function armLexiconModel(corpus: string, input: string): Promise<LexiconModel> {
  for (const f of [corpus, input])
    if (!existsSync(f)) throw new UserInputError(`lexicon corrector: no ${f} — run \`phase5 build\` and \`phase5 export\` first`);
  const key = [corpus, statSync(corpus).mtimeMs, input, statSync(input).mtimeMs].join('\0');
  let m = models.get(key);
  if (!m) {
    m = build(corpus, input);
    models.set(key, m);
    m.catch(() => models.delete(key));
  }
  return m;
}
