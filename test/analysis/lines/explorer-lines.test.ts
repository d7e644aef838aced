/**
 * The Lines view's retrieved sentences (analysis/lines/explorer-lines.ts `retrieved`): the prompt's context is split by its
 * numbering, so a sentence that kept a newline, an empty sentence or a context with fewer sentences than
 * hits still pairs each text with its own score and source.
 */
import { expect } from 'chai';
import { contextSentences, retrieved } from '../../../analysis/lines/explorer-lines';
import type { AnalysisInputRecord } from '../../../analysis/inputs/records';
import { CONTEXT_HEADER, formatForPrompt } from '../../../src/prompts/context';

const S1 = 'قال الشيخ أبو بكر';
const S2 = 'حدثنا محمد بن عبد الله';
const S3 = 'وكان ذلك في سنة ثلاث';

/** An inference input with `k` hits (scores 0.9, 0.8, …; sources src1, src2, …) and the given context. */
function input(context: string, k = 3): AnalysisInputRecord {
  return {
    sample_id: 's1',
    dataset: 'D',
    ocr_text: 'x',
    gt_text: 'x',
    prompt_type: 'rag',
    retrieval_context: context,
    retrieved_k: k,
    retrieval_scores: Array.from({ length: k }, (_, i) => 0.9 - i / 10),
    retrieval_sources: Array.from({ length: k }, (_, i) => ({ source_uri: `src${i + 1}`, idx: i })),
  } as AnalysisInputRecord;
}
const texts = (context: string, k = 3) => retrieved(input(context, k), null)!.map((h) => h.text);

describe('analysis/lines: retrieved sentences from the prompt context', () => {
  it('numbered_arabic as export formats it: header skipped, one sentence per hit, with score and source', () => {
    const hits = retrieved(input(formatForPrompt([{ text: S1 }, { text: S2 }, { text: S3 }], 'numbered_arabic')), (u) => u === 'src2')!;
    expect(hits.map((h) => h.text)).to.deep.equal([S1, S2, S3]);
    expect(hits.map((h) => h.score)).to.deep.equal([0.9, 0.8, 0.7]);
    expect(hits.map((h) => h.source_uri)).to.deep.equal(['src1', 'src2', 'src3']);
    expect(hits.map((h) => h.from_source)).to.deep.equal([false, true, false]);
  });

  it('a sentence that kept a newline (a context window) stays one sentence: split by numbering, not by line', () => {
    const ctx = [CONTEXT_HEADER, `1. ${S1}`, `2. ${S2}`, 'تتمة السطر', `3. ${S3}`].join('\n');
    expect(texts(ctx)).to.deep.equal([S1, `${S2}\nتتمة السطر`, S3]);
  });

  it('an empty sentence keeps its place; fewer sentences than hits leave only the missing ones without text', () => {
    expect(texts([CONTEXT_HEADER, `1. ${S1}`, '2. ', `3. ${S3}`].join('\n'))).to.deep.equal([S1, '', S3]);
    expect(texts([CONTEXT_HEADER, `1. ${S1}`, `2. ${S2}`].join('\n'))).to.deep.equal([S1, S2, null]);
  });

  it('plain context with citations ([#i]) splits by its numbers; without them only an exact line count pairs', () => {
    expect(texts([`[#1] ${S1}`, `[#2] ${S2}`, 'تتمة', `[#3] ${S3}`].join('\n'))).to.deep.equal([S1, `${S2}\nتتمة`, S3]);
    expect(texts([S1, S2, S3].join('\n'))).to.deep.equal([S1, S2, S3]);
    expect(texts([S1, S2, 'تتمة', S3].join('\n'))).to.deep.equal([null, null, null]);
  });

  it('a context without scores or sources (an older export) still lists its sentences', () => {
    const hits = retrieved(input(formatForPrompt([{ text: S1 }, { text: S2 }], 'numbered_arabic'), 0), null)!;
    expect(hits.map((h) => [h.text, h.score, h.source_uri])).to.deep.equal([
      [S1, null, null],
      [S2, null, null],
    ]);
    expect(retrieved(input('', 0), null)).to.deep.equal([]);
    expect(retrieved(null, null)).to.equal(null);
  });

  it('contextSentences: numbers count only in order — an out-of-order "3. " line continues the sentence before', () => {
    expect(contextSentences([CONTEXT_HEADER, `1. ${S1}`, `3. ${S3}`].join('\n'))).to.deep.equal({
      sentences: [`${S1}\n3. ${S3}`],
      numbered: true,
    });
  });
});
