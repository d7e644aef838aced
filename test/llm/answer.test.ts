/** From the backend's answer to the correction: reasoning set apart, truncation and JSON answers as failures of their own. */
import { expect } from 'chai';
import { AnswerError, readAnswer, splitThink } from '../../src/llm/answer';
import type { CompletionResult } from '../../src/llm/types';

const res = (over: Partial<CompletionResult>): CompletionResult => ({
  text: '',
  promptTokens: 1,
  completionTokens: 2,
  latencyMs: 1,
  attempts: 1,
  ...over,
});
const reasonOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof AnswerError) return e.failure.reason;
    throw e;
  }
  return 'none';
};

describe('llm/answer', () => {
  it('splits a <think> block, a lone </think> and an unclosed <think> off the content', () => {
    expect(splitThink('<think>أفكر</think>\nالنص')).to.deep.equal({ text: 'النص', reasoning: 'أفكر' });
    expect(splitThink('أفكر</think>النص')).to.deep.equal({ text: 'النص', reasoning: 'أفكر' });
    expect(splitThink('<think>لم أنته')).to.deep.equal({ text: '', reasoning: 'لم أنته' });
    expect(splitThink('النص <think> في الوسط')).to.deep.equal({ text: 'النص <think> في الوسط', reasoning: null });
  });

  it('keeps reasoning_content and a <think> block as the reasoning, never in the text', () => {
    const a = readAnswer(res({ text: '<think>ب</think>النص', reasoning: 'أ' }), null);
    expect(a).to.deep.equal({ text: 'النص', reasoning: 'أ\nب' });
  });

  it('finish_reason length is `truncated`, with the advice to raise max_tokens, even with some text', () => {
    expect(reasonOf(() => readAnswer(res({ text: '', finishReason: 'length', reasoning: 'طويل' }), null))).to.equal('truncated');
    expect(reasonOf(() => readAnswer(res({ text: 'نص مقطو', finishReason: 'length' }), null))).to.equal('truncated');
    try {
      readAnswer(res({ text: '', finishReason: 'length', reasoning: 'طويل' }), null);
    } catch (e) {
      expect((e as AnswerError).failure.message).to.match(/raise decoding\.max_tokens/);
      expect((e as AnswerError).reasoning).to.equal('طويل');
    }
    expect(readAnswer(res({ text: 'نص', finishReason: 'stop' }), null).text).to.equal('نص');
  });

  it('reads a JSON answer’s field; an answer that does not parse, or lacks the field, is `invalid_json`', () => {
    expect(readAnswer(res({ text: '{"corrected_text": "النص"}' }), 'corrected_text')).to.deep.equal({ text: 'النص', reasoning: null });
    expect(reasonOf(() => readAnswer(res({ text: 'النص' }), 'corrected_text'))).to.equal('invalid_json');
    expect(reasonOf(() => readAnswer(res({ text: '{"other": "النص"}' }), 'corrected_text'))).to.equal('invalid_json');
    expect(reasonOf(() => readAnswer(res({ text: '["النص"]' }), 'corrected_text'))).to.equal('invalid_json');
  });

  it('an answer that is only reasoning is `empty_content`', () => {
    expect(reasonOf(() => readAnswer(res({ text: '<think>فقط</think>' }), null))).to.equal('empty_content');
    // An empty answer without reasoning passes as it always has (the local backend's greedy model may say nothing).
    expect(readAnswer(res({ text: '' }), null)).to.deep.equal({ text: '', reasoning: null });
  });
});
