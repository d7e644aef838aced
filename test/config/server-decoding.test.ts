/** Config errors about a decoding the arm's server cannot honour (src/config/prompt-problems.ts, src/llm/request-problems.ts). */
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../src/config/load';

const problems = (raw: object): string[] => {
  try {
    parseConfig(raw, 'x.yaml', { env: {} });
  } catch (e) {
    if (e instanceof ConfigError)
      return e.message
        .split('\n')
        .slice(1)
        .map((l) => l.trim().replace(/^- /, ''));
    throw e;
  }
  return [];
};
const openai = (over: object, decoding?: object) => ({ infer: { backend: 'openai', openai: over, ...(decoding ? { decoding } : {}) } });

describe('config: decoding against the server', () => {
  it('guided_* in extra_body is one line naming its replacement', () => {
    const lines = problems(openai({}, { extra_body: { guided_json: { type: 'object' } } }));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(
      /^infer\.decoding\.extra_body\.guided_json: vLLM ignores guided_json since 0\.12 — use decoding\.structured: \{json: <schema>\}/,
    );
    expect(problems(openai({}, { extra_body: { guided_choice: ['a'] } }))[0]).to.include('use decoding.structured: {choice: [<strings>]}');
    expect(problems(openai({}, { extra_body: { structured_outputs: { grammar: 'root ::= "a"' } } }))).to.deep.equal([]);
  });

  it('regex or choice to OpenAI, regex to llama.cpp are refused; the same to vLLM or to an auto server passes', () => {
    expect(problems(openai({ server: 'openai', model: 'gpt-4o' }, { structured: { choice: ['a', 'b'] } }))).to.deep.equal([
      'infer.decoding.structured: OpenAI takes no choice constraint — use decoding.structured.json (a schema with an "enum" for a choice)',
    ]);
    expect(problems(openai({ server: 'llamacpp' }, { structured: { regex: 'a+' } }))[0]).to.match(
      /^infer\.decoding\.structured: llama\.cpp takes no regex/,
    );
    expect(problems(openai({ server: 'vllm' }, { structured: { regex: 'a+' } }))).to.deep.equal([]);
    expect(problems(openai({}, { structured: { regex: 'a+' } }))).to.deep.equal([]);
  });

  it('an OpenAI reasoning model refuses temperature 0.7, top_p and stop strings; OpenAI takes at most 4 stops', () => {
    const o3 = { base_url: 'https://api.openai.com/v1', model: 'o3' };
    expect(problems(openai(o3, { temperature: 0.7 }))).to.deep.equal([
      'infer.decoding.temperature: o3 samples at its own temperature (1) and refuses 0.7 — remove it (0, the default, is not sent)',
    ]);
    expect(problems(openai(o3, { top_p: 0.9, stop: ['\n'] }))).to.have.length(2);
    expect(problems(openai(o3))).to.deep.equal([]);
    expect(problems(openai({ server: 'openai', model: 'gpt-4o' }, { stop: ['a', 'b', 'c', 'd', 'e'] }))).to.deep.equal([
      'infer.decoding.stop: OpenAI takes at most 4 stop strings, got 5',
    ]);
    expect(problems(openai({ server: 'vllm', model: 'o3' }, { temperature: 0.7 }))).to.deep.equal([]);
  });

  it('structured and a JSON response_format together, or a schema without a string field, are refused', () => {
    const both = problems(openai({}, { structured: { regex: 'a' }, response_format: { type: 'json_object' } }));
    expect(both).to.have.length(1);
    expect(both[0]).to.match(/^infer\.decoding\.structured: set decoding\.structured or a JSON decoding\.response_format, not both/);
    expect(problems(openai({}, { structured: { json: { type: 'object', properties: { n: { type: 'number' } } } } }))[0]).to.match(
      /^infer\.decoding\.structured\.json: the schema must declare a string property "corrected_text"/,
    );
    expect(problems({ infer: { decoding: { structured: { regex: 'a' }, reasoning: 'none' } } })).to.deep.equal([
      'infer.decoding.structured: the local backend cannot constrain its answer — use infer.backend: openai',
      'infer.decoding.reasoning: the local backend sends no reasoning level — use infer.backend: openai',
    ]);
  });

  it('a study arm’s server and model are its own (infer overrides)', () => {
    const raw = {
      infer: { backend: 'openai', openai: { server: 'vllm' } },
      study: {
        arms: [
          {
            name: 'hosted',
            prompt: 'zero_shot',
            retrieval: { mode: 'none' },
            infer: { openai: { server: 'openai', model: 'o4-mini' } },
            decoding: { temperature: 0.2 },
          },
        ],
      },
    };
    expect(problems(raw)).to.deep.equal([
      'study.arms.0.decoding.temperature: o4-mini samples at its own temperature (1) and refuses 0.2 — remove it (0, the default, is not sent)',
    ]);
  });
});
