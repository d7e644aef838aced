/**
 * The LLM backend a config asks for (src/stages/infer/backend.ts): the OpenAI-compatible settings mapped one to one,
 * a local GGUF that is missing as a worker-local problem (another worker may have it) naming the config key, and the model name outputs record.
 */
import { expect } from 'chai';
import { parseConfig } from '../../../src/config/load';
import { backendConfig, modelName } from '../../../src/stages/infer/backend';
import { WorkerSetupError } from '../../../src/util/worker-setup-error';

const config = (infer: Record<string, unknown>) => parseConfig({ infer }, 'backend-test.yaml', { env: {} });

describe('stages/backend', () => {
  it('an openai backend carries the endpoint, model, key variable, limits and retries', () => {
    const c = config({
      backend: 'openai',
      temperature: 0,
      openai: { base_url: 'http://gpu-box:8000/v1', model: 'qwen', api_key_env: 'MY_KEY', timeout_s: 30, max_retries: 4 },
    });
    expect(backendConfig(c)).to.deep.include({
      type: 'openai',
      baseUrl: 'http://gpu-box:8000/v1',
      model: 'qwen',
      apiKeyEnv: 'MY_KEY',
      temperature: 0,
      timeoutMs: 30000,
      retry: { maxRetries: 4 },
    });
    expect(modelName(c)).to.equal('qwen');
  });

  it('a local backend whose GGUF is missing fails as a worker-local problem naming the file and the config key; the model name is the file name', () => {
    const c = config({ backend: 'local', local: { model_path: '/nowhere/tiny-model.gguf' } });
    expect(() => backendConfig(c)).to.throw(
      WorkerSetupError,
      /GGUF model not found: \/nowhere\/tiny-model\.gguf — put it on this worker \(infer\.local\.model_path/,
    );
    expect(modelName(c)).to.equal('tiny-model');
  });
});
