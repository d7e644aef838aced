/** `phase5 plan`'s notes about an arm on its server: reasoning headroom, greedy replicates, reproducibility. */
import { expect } from 'chai';
import { resolveDecoding, type Decoding } from '../../src/llm/decoding';
import { requestRules } from '../../src/llm/servers/openai-models';
import { serverNotes } from '../../src/plan/server-notes';
import type { ArmServer } from '../../src/stages/infer/arm-server';

const server = (kind: ArmServer['kind'], version: string | null = null): ArmServer => ({
  kind,
  version,
  source: 'test',
  request_rules: requestRules(kind, 'm'),
});
const notes = (model: string, d: Decoding, s: ArmServer | null, replicates = 1) =>
  serverNotes({ name: 'a', model, replicates }, resolveDecoding(d, { temperature: 0, maxTokens: 512 }), s);

describe('plan/server-notes', () => {
  it('a reasoning model with max_tokens below the headroom is told so; reasoning off or enough tokens is not', () => {
    expect(notes('Qwen/Qwen3-8B', {}, null)).to.deep.equal([
      'arm a: Qwen/Qwen3-8B reasons before it answers and max_tokens is 512 — a trace can use all of it (a cut answer is a failed line): raise decoding.max_tokens to 2048 or more, or set decoding.reasoning: none',
    ]);
    expect(notes('o4-mini', {}, null)).to.have.length(1);
    expect(notes('smollm2', { reasoning: 'high' }, null)).to.have.length(1);
    expect(notes('Qwen/Qwen3-8B', { reasoning: 'none' }, null)).to.deep.equal([]);
    expect(notes('Qwen/Qwen3-8B', { max_tokens: 4096 }, null)).to.deep.equal([]);
    expect(notes('Qwen/Qwen3-4B-Instruct-2507', {}, null)).to.deep.equal([]);
  });

  it('replicates at temperature 0 are named; each server says what reproducible answers need', () => {
    expect(notes('m', {}, null, 3)[0]).to.match(/^arm a: 3 replicates at temperature 0 repeat the greedy answer/);
    expect(notes('m', { temperature: 0.7 }, null, 3)).to.deep.equal([]);
    expect(notes('m', { top_p: 1 }, server('vllm', '0.32.0'))).to.deep.equal([
      'arm a (vllm 0.32.0): answers repeat only when the server runs with VLLM_BATCH_INVARIANT=1',
    ]);
    expect(notes('m', {}, server('llamacpp'))[0])
      .to.include('cache_prompt is on (the server default)')
      .and.include('top_k is 40 and min_p 0.05');
    expect(notes('m', { extra_body: { cache_prompt: false, top_k: 1 } }, server('llamacpp'))).to.deep.equal([]);
    expect(notes('m', {}, server('ollama'))[0]).to.include('unset top_p is sent as 1');
    expect(notes('m', {}, server('openai'))).to.deep.equal([]);
  });
});
