/** A worker's own LLM endpoint: flags over PHASE5_* variables, checked values, applied to the matching backend only. */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyEndpointOverride, describeEndpointOverride, endpointOverrideFrom } from '../../src/llm/endpoint';
import type { BackendConfig } from '../../src/llm';
import { OpenAiCompatibleBackend, redactedUrl } from '../../src/llm/openai-backend';

const openai: BackendConfig = {
  type: 'openai',
  baseUrl: 'https://openrouter.ai/api/v1',
  model: 'qwen/qwen3-8b',
  apiKeyEnv: 'OPENROUTER_API_KEY',
  concurrency: 4,
};
const llama: BackendConfig = { type: 'llama', modelPath: '/models/config.gguf', modelName: 'config', threads: 2 };

describe('llm/endpoint: worker-local endpoint override', () => {
  it('takes flags over PHASE5_* variables, ignoring empty values', () => {
    const env = { PHASE5_OPENAI_BASE_URL: 'http://10.0.0.5:8000/v1', PHASE5_OPENAI_MODEL: 'env-model', PHASE5_OPENAI_API_KEY_ENV: '' };
    expect(endpointOverrideFrom({ baseUrl: 'http://127.0.0.1:8000/v1' }, env)).to.deep.equal({
      baseUrl: 'http://127.0.0.1:8000/v1',
      model: 'env-model',
    });
    expect(endpointOverrideFrom({}, {})).to.deep.equal({});
  });

  it('rejects a base URL that is not http(s), naming flag and variable', () => {
    expect(() => endpointOverrideFrom({ baseUrl: '127.0.0.1:8000/v1' }, {})).to.throw(
      '--openai-base-url / PHASE5_OPENAI_BASE_URL: "127.0.0.1:8000/v1" is not an http(s) URL',
    );
  });

  it('takes the NAME of the key variable, and never echoes a key passed by mistake', () => {
    expect(endpointOverrideFrom({ apiKeyEnv: 'GPU_BOX_KEY' }, {})).to.deep.equal({ apiKeyEnv: 'GPU_BOX_KEY' });
    const err = (() => {
      try {
        endpointOverrideFrom({ apiKeyEnv: 'sk-or-v1-abc123' }, {});
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).to.match(/takes the NAME of the environment variable/);
    expect(err?.message).to.not.contain('sk-or-v1-abc123');
  });

  it('resolves --local-model-path and fails at once when the file is missing', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'endpoint-'));
    const gguf = path.join(dir, 'box.gguf');
    writeFileSync(gguf, 'gguf');
    expect(endpointOverrideFrom({}, { PHASE5_LOCAL_MODEL_PATH: gguf })).to.deep.equal({ modelPath: gguf });
    expect(() => endpointOverrideFrom({ modelPath: path.join(dir, 'none.gguf') }, {})).to.throw(
      /--local-model-path \/ PHASE5_LOCAL_MODEL_PATH: GGUF model not found: .*none\.gguf/,
    );
  });

  it('replaces the OpenAI settings of an OpenAI config and keeps the rest', () => {
    const o = { baseUrl: 'http://127.0.0.1:8000/v1', model: 'box-model', apiKeyEnv: 'BOX_KEY', modelPath: '/models/box.gguf' };
    expect(applyEndpointOverride(openai, o)).to.deep.equal({ ...openai, baseUrl: o.baseUrl, model: 'box-model', apiKeyEnv: 'BOX_KEY' });
    expect(applyEndpointOverride(openai, { model: 'only-model' })).to.deep.equal({ ...openai, model: 'only-model' });
  });

  it('replaces the model path of a local config (its recorded name follows the file), nothing else', () => {
    expect(applyEndpointOverride(llama, { baseUrl: 'http://127.0.0.1:8000/v1' })).to.deep.equal(llama);
    expect(applyEndpointOverride(llama, { modelPath: '/models/box.gguf' })).to.deep.equal({
      type: 'llama',
      modelPath: '/models/box.gguf',
      threads: 2,
    });
  });

  it('describes the active override in one line for the worker log, or nothing', () => {
    expect(describeEndpointOverride({})).to.equal(null);
    expect(describeEndpointOverride({ baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'BOX_KEY' })).to.match(
      /^worker-local LLM endpoint: base_url http:\/\/127\.0\.0\.1:8000\/v1, key from \$BOX_KEY \(/,
    );
  });

  it('never shows a key carried in the URL: credentials and query values are redacted in the log line and the backend id', () => {
    const url = 'https://user:sekret-1@box.example/v1?api-key=sekret-2';
    const line = describeEndpointOverride({ baseUrl: url })!;
    expect(line).to.include('base_url https://***@box.example/v1?api-key=***');
    const backend = new OpenAiCompatibleBackend({ baseUrl: url, model: 'm' });
    for (const text of [line, backend.id]) expect(text).to.not.match(/sekret/);
    expect(redactedUrl('http://127.0.0.1:8000/v1')).to.equal('http://127.0.0.1:8000/v1');
    expect(redactedUrl('not a url')).to.equal('not a url');
  });
});
