/** Decoding settings: defaults, the arm's override, the request body they make, and what the config refuses. */
import { expect } from 'chai';
import { OpenAiCompatibleBackend } from '../../src/llm/openai-backend';
import { armDecoding, DecodingSchema, jsonAnswerField, requestFields, resolveDecoding } from '../../src/llm/decoding';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCorrections } from '../../src/llm/runner';
import { completion, startFakeServer, type FakeServer } from './fake-openai-server';

const SCHEMA = {
  type: 'json_schema',
  json_schema: { name: 'c', schema: { type: 'object', properties: { corrected_text: { type: 'string' } } } },
} as const;

describe('llm/decoding', () => {
  let server: FakeServer | null = null;
  afterEach(async () => server?.close());

  it('without a decoding block: temperature from infer.temperature, the backend max_tokens, nothing else sent', () => {
    const d = resolveDecoding(undefined, { temperature: 0.3, maxTokens: 512 });
    expect(requestFields(d)).to.deep.equal({ temperature: 0.3, max_tokens: 512 });
  });

  it('sends every key set, and extra_body verbatim; a stop string becomes a list', () => {
    const d = resolveDecoding(
      {
        temperature: 0.7,
        top_p: 0.9,
        seed: 11,
        max_tokens: 64,
        stop: '###',
        response_format: SCHEMA,
        extra_body: { chat_template_kwargs: { enable_thinking: false } },
      },
      { temperature: 0, maxTokens: 512 },
    );
    expect(requestFields(d)).to.deep.equal({
      chat_template_kwargs: { enable_thinking: false },
      temperature: 0.7,
      max_tokens: 64,
      top_p: 0.9,
      seed: 11,
      stop: ['###'],
      response_format: SCHEMA,
    });
  });

  it("an arm's decoding overrides the study's key by key, extra_body key by key", () => {
    const merged = armDecoding({ temperature: 0.5, seed: 1, extra_body: { a: 1, b: 2 } }, { seed: 2, extra_body: { b: 3 } });
    expect(merged).to.deep.equal({ temperature: 0.5, seed: 2, extra_body: { a: 1, b: 3 } });
    expect(armDecoding(undefined, { seed: 2 })).to.deep.equal({ seed: 2 });
    expect(armDecoding({ seed: 1 }, undefined)).to.deep.equal({ seed: 1 });
  });

  it('refuses an extra_body key the request sets itself, and a JSON schema without a string field to read', () => {
    const dup = DecodingSchema.safeParse({ extra_body: { seed: 3 } });
    expect(dup.success).to.equal(false);
    expect(dup.error!.issues[0]).to.deep.include({ path: ['extra_body', 'seed'] });
    const noField = DecodingSchema.safeParse({
      response_format: { type: 'json_schema', json_schema: { name: 'c', schema: { properties: { a: { type: 'number' } } } } },
    });
    expect(noField.success).to.equal(false);
    expect(DecodingSchema.safeParse({ top_p: 0 }).success).to.equal(false);
    expect(DecodingSchema.safeParse({ seed: 1.5 }).success).to.equal(false);
  });

  it('reads the JSON answer from corrected_text, or the schema’s only string property', () => {
    expect(jsonAnswerField(SCHEMA)).to.equal('corrected_text');
    expect(jsonAnswerField({ type: 'json_object' })).to.equal('corrected_text');
    expect(
      jsonAnswerField({ type: 'json_schema', json_schema: { name: 'c', schema: { properties: { text: { type: 'string' } } } } }),
    ).to.equal('text');
    expect(jsonAnswerField({ type: 'text' })).to.equal(null);
    expect(jsonAnswerField(null)).to.equal(null);
    // llama.cpp's form of a schema: json_object with `schema` (llama-cpp-python's server refuses json_schema).
    expect(jsonAnswerField({ type: 'json_object', schema: { properties: { fixed: { type: 'string' } } } })).to.equal('fixed');
    // decoding.structured: a JSON schema's answer is parsed; a regex or choice answer is the text itself.
    expect(jsonAnswerField(null, { json: { properties: { corrected_text: { type: 'string' } } } })).to.equal('corrected_text');
    expect(jsonAnswerField(null, { regex: '[ء-ي ]+' })).to.equal(null);
    expect(jsonAnswerField(null, { choice: ['a', 'b'] })).to.equal(null);
    const bad = DecodingSchema.safeParse({ response_format: { type: 'json_object', schema: { properties: { n: { type: 'number' } } } } });
    expect(bad.success).to.equal(false);
    expect(bad.error!.issues[0]).to.deep.include({ path: ['response_format', 'schema'] });
  });

  it('the HTTP backend sends exactly model, messages and the decoding fields; it reads the served model and finish reason', async () => {
    server = await startFakeServer(() => ({
      json: {
        ...(completion('x') as object),
        model: 'served/other',
        system_fingerprint: 'fp',
        choices: [{ message: { content: 'x' }, finish_reason: 'stop' }],
      },
    }));
    const decoding = resolveDecoding({ seed: 5, top_p: 0.8, stop: ['\n'] }, { temperature: 0, maxTokens: 100 });
    const backend = new OpenAiCompatibleBackend({ baseUrl: server.url, model: 'asked', adaptive: false, decoding });
    const res = await backend.complete([{ role: 'user', content: 'نص' }]);
    expect(server.requests[0].body).to.deep.equal({
      model: 'asked',
      messages: [{ role: 'user', content: 'نص' }],
      temperature: 0,
      max_tokens: 100,
      top_p: 0.8,
      seed: 5,
      stop: ['\n'],
    });
    expect(res).to.include({ servedModel: 'served/other', systemFingerprint: 'fp', finishReason: 'stop', reasoning: null });
  });

  it('the HTTP backend returns an empty answer cut at max_tokens instead of retrying it as empty', async () => {
    server = await startFakeServer(() => ({
      json: { model: 'm', choices: [{ message: { content: null, reasoning_content: 'thinking…' }, finish_reason: 'length' }] },
    }));
    const backend = new OpenAiCompatibleBackend({
      baseUrl: server.url,
      model: 'm',
      adaptive: false,
      retry: { maxRetries: 0, invalidRetries: 2 },
    });
    const res = await backend.complete([{ role: 'user', content: 'نص' }]);
    expect(res).to.include({ text: '', finishReason: 'length', reasoning: 'thinking…', attempts: 1 });
    expect(server.requests).to.have.length(1);
  });

  it('with a JSON response_format the correction is the answer’s field; an answer that does not parse is an invalid_json line', async () => {
    server = await startFakeServer((r) => {
      const user = r.body.messages![r.body.messages!.length - 1].content;
      return { json: completion(user === 'نص 1' ? 'ليس JSON' : JSON.stringify({ corrected_text: `${user}!` })) };
    });
    const decoding = resolveDecoding({ response_format: SCHEMA }, { temperature: 0, maxTokens: 64 });
    const backend = new OpenAiCompatibleBackend({ baseUrl: server.url, model: 'm', adaptive: false, decoding });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'json-answers-'));
    try {
      const outputPath = path.join(dir, 'c.jsonl');
      const inputPath = [0, 1, 2].map((i) => ({ sample_id: `s${i}`, dataset: 'd', ocr_text: `نص ${i}`, gt_text: `نص ${i}` }));
      const s = await runCorrections({
        inputPath,
        outputPath,
        backend,
        prompt: 'zero_shot',
        jsonField: jsonAnswerField(SCHEMA),
        progress: 'silent',
      });
      expect(s).to.include({ succeeded: 2, failed: 1 });
      const recs = readFileSync(outputPath, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(recs.map((r) => r.corrected_text)).to.deep.equal(['نص 0!', '', 'نص 2!']);
      expect(recs[1].error).to.include({ reason: 'invalid_json' });
      expect(recs[1].raw_output).to.equal('ليس JSON');
      expect(server.requests[0].body.response_format).to.deep.equal(SCHEMA);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
