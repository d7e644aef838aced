/** The answer read from a chat-completion body: the three places a reasoning trace comes in, and bad shapes. */
import { expect } from 'chai';
import { readAnswer } from '../../src/llm/answer';
import { readCompletion } from '../../src/llm/completion';
import { LlmError, type CompletionResult } from '../../src/llm/types';

const answer = (message: Record<string, unknown>, finish = 'stop') => ({ model: 'served', choices: [{ message, finish_reason: finish }] });

function read(body: unknown): CompletionResult {
  const r = readCompletion(body);
  if (r instanceof LlmError) throw r;
  return { ...r, latencyMs: 0, attempts: 1 };
}

describe('llm/completion', () => {
  it('reads the trace from `reasoning` (vLLM ≥ 0.12, Ollama), from `reasoning_content` (SGLang, llama.cpp) and from a <think> block', () => {
    const fromReasoning = read(answer({ content: 'النص', reasoning: 'فكرت' }));
    expect(fromReasoning).to.include({ text: 'النص', reasoning: 'فكرت', servedModel: 'served', finishReason: 'stop' });
    expect(read(answer({ content: 'النص', reasoning_content: 'فكرت' }))).to.include({ reasoning: 'فكرت' });
    const think = read(answer({ content: '<think>فكرت</think>\nالنص' }));
    expect(think.reasoning).to.equal(null);
    expect(readAnswer(think, null)).to.deep.equal({ text: 'النص', reasoning: 'فكرت' });
    for (const r of [fromReasoning, read(answer({ content: 'النص', reasoning_content: 'فكرت' }))])
      expect(readAnswer(r, null)).to.deep.equal({ text: 'النص', reasoning: 'فكرت' });
  });

  it('a batch output line’s response.body reads the same way; bad shapes are invalid_response / empty_content', () => {
    const line = { id: 'batch_req_1', custom_id: 'd:s1', response: { status_code: 200, body: answer({ content: 'x' }) } };
    expect(read(line.response.body)).to.include({ text: 'x' });
    expect(readCompletion('oops')).to.be.instanceOf(LlmError).with.property('reason', 'invalid_response');
    expect(readCompletion({ choices: [] }))
      .to.be.instanceOf(LlmError)
      .with.property('reason', 'invalid_response');
    expect(readCompletion(answer({ content: ' ' })))
      .to.be.instanceOf(LlmError)
      .with.property('reason', 'empty_content');
    expect(read(answer({ content: null, reasoning: 'still thinking' }, 'length'))).to.include({ text: '', finishReason: 'length' });
  });
});
