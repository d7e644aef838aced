/** The body infer sends for a line, per server: the portable keys translated, OpenAI's reasoning models' rules. */
import { expect } from 'chai';
import { resolveDecoding, type Decoding } from '../../src/llm/decoding';
import { chatRequestBody, RequestShapeError } from '../../src/llm/request-body';
import { configuredServer, UNKNOWN_SERVER, type ServerInfo, type ServerKind } from '../../src/llm/servers/kinds';

const MESSAGES = [{ role: 'user' as const, content: 'نص' }];
const SCHEMA = { type: 'object', properties: { corrected_text: { type: 'string' } }, required: ['corrected_text'] };

function body(d: Decoding, server: ServerInfo | ServerKind, model = 'm'): Record<string, unknown> {
  const info = typeof server === 'string' ? configuredServer(server) : server;
  return chatRequestBody(model, MESSAGES, resolveDecoding(d, { temperature: 0, maxTokens: 64 }), info);
}

describe('llm/request-body', () => {
  it('a default request is the same bytes on every server', () => {
    const expected = JSON.stringify({ model: 'm', messages: MESSAGES, temperature: 0, max_tokens: 64, seed: 3 });
    for (const kind of ['vllm', 'sglang', 'llamacpp', 'ollama', 'openai'] as const)
      expect(JSON.stringify(body({ seed: 3 }, kind))).to.equal(expected);
    expect(JSON.stringify(body({ seed: 3 }, UNKNOWN_SERVER))).to.equal(expected);
  });

  it('structured json: vLLM structured_outputs, SGLang / Ollama / OpenAI json_schema, llama.cpp {json_object, schema}', () => {
    const s = { structured: { json: SCHEMA } };
    expect(body(s, 'vllm'))
      .to.deep.include({ structured_outputs: { json: SCHEMA } })
      .and.not.have.property('response_format');
    const openAiForm = { type: 'json_schema', json_schema: { name: 'correction', schema: SCHEMA } };
    for (const kind of ['sglang', 'ollama', 'openai'] as const) expect(body(s, kind).response_format).to.deep.equal(openAiForm);
    expect(body(s, 'llamacpp').response_format).to.deep.equal({ type: 'json_object', schema: SCHEMA });
  });

  it('a vLLM before 0.10.2 (by its reported version) gets the guided_* fields it reads', () => {
    const old = { kind: 'vllm', version: '0.9.1', source: 'GET /version' } as const;
    expect(body({ structured: { json: SCHEMA } }, old)).to.deep.include({ guided_json: SCHEMA });
    expect(body({ structured: { regex: 'a+' } }, old)).to.deep.include({ guided_regex: 'a+' });
    expect(body({ structured: { regex: 'a+' } }, { ...old, version: '0.32.0' })).to.deep.include({ structured_outputs: { regex: 'a+' } });
  });

  it('regex and choice: vLLM structured_outputs, SGLang regex, llama.cpp a GBNF grammar of the choices', () => {
    expect(body({ structured: { choice: ['نعم', 'لا'] } }, 'vllm')).to.deep.include({ structured_outputs: { choice: ['نعم', 'لا'] } });
    expect(body({ structured: { regex: '[ء-ي ]+' } }, 'sglang')).to.deep.include({ regex: '[ء-ي ]+' });
    expect(body({ structured: { choice: ['a.b', 'c|d'] } }, 'sglang')).to.deep.include({ regex: '(a\\.b|c\\|d)' });
    expect(body({ structured: { choice: ['نعم', 'say "x"'] } }, 'llamacpp')).to.deep.include({ grammar: 'root ::= "نعم" | "say \\"x\\""' });
  });

  it('a constraint a server has no field for is refused in one line naming the key, never dropped', () => {
    const cases: [ServerKind, NonNullable<Decoding['structured']>][] = [
      ['llamacpp', { regex: 'a' }],
      ['ollama', { regex: 'a' }],
      ['ollama', { choice: ['a'] }],
      ['openai', { choice: ['a'] }],
    ];
    for (const [kind, s] of cases) {
      expect(() => body({ structured: s }, kind))
        .to.throw(RequestShapeError)
        .with.property('message')
        .that.matches(/^decoding\.structured: .* takes no (regex|choice) constraint — /);
    }
  });

  it('a {json_object, schema} response_format keeps its schema as json_schema on vLLM, SGLang, Ollama and OpenAI; json_schema becomes llama.cpp’s form', () => {
    const jsonObject = { response_format: { type: 'json_object' as const, schema: SCHEMA } };
    for (const kind of ['vllm', 'sglang', 'ollama', 'openai'] as const)
      expect(body(jsonObject, kind).response_format).to.deep.equal({
        type: 'json_schema',
        json_schema: { name: 'correction', schema: SCHEMA },
      });
    expect(body(jsonObject, 'llamacpp').response_format).to.deep.equal(jsonObject.response_format);
    const jsonSchema = { response_format: { type: 'json_schema' as const, json_schema: { name: 'c', schema: SCHEMA } } };
    expect(body(jsonSchema, 'llamacpp').response_format).to.deep.equal({ type: 'json_object', schema: SCHEMA });
    expect(body(jsonSchema, 'vllm').response_format).to.deep.equal(jsonSchema.response_format);
  });

  it('reasoning: reasoning_effort everywhere; on vLLM `none` also sets enable_thinking, keeping extra_body’s other kwargs', () => {
    const off = { reasoning: 'none' as const, extra_body: { chat_template_kwargs: { custom: 1 } } };
    expect(body(off, 'vllm')).to.deep.include({ reasoning_effort: 'none', chat_template_kwargs: { custom: 1, enable_thinking: false } });
    for (const kind of ['sglang', 'llamacpp', 'ollama', 'openai'] as const) {
      expect(body(off, kind)).to.deep.include({ reasoning_effort: 'none', chat_template_kwargs: { custom: 1 } });
      expect(body({ reasoning: 'high' }, kind)).to.deep.include({ reasoning_effort: 'high' });
    }
  });

  it('OpenAI reasoning models: max_completion_tokens, no temperature or top_p; other OpenAI models and other servers keep max_tokens', () => {
    for (const model of ['o3', 'o4-mini', 'o1-2024-12-17', 'gpt-5', 'gpt-5-mini', 'gpt-5.1']) {
      const b = body({ top_p: 1 }, 'openai', model);
      expect(b, model).to.include({ max_completion_tokens: 64 });
      expect(b, model).to.not.have.any.keys('max_tokens', 'temperature', 'top_p');
    }
    for (const model of ['gpt-4o', 'gpt-4.1-mini', 'gpt-5-chat-latest'])
      expect(body({}, 'openai', model), model).to.include({ max_tokens: 64, temperature: 0 });
    expect(body({}, 'vllm', 'o3')).to.include({ max_tokens: 64, temperature: 0 });
  });
});
