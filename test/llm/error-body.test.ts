/** SGLang's flat error body reads as its message (src/llm/error-body.ts), as vLLM's nested one does. */
import { expect } from 'chai';
import { OpenAiCompatibleBackend, type LlmError } from '../../src/llm';
import { nestedErrorBody } from '../../src/llm/error-body';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';

describe('llm/error-body: error bodies of each server kind read as the server’s message', () => {
  let sim: SimLlmServer;
  afterEach(async () => sim?.close());

  for (const kind of ['sglang', 'vllm'] as const) {
    it(`${kind}: a 404 for a model it does not serve reads as its message, not "status code (no body)"`, async () => {
      sim = await startSimLlmServer({ kind, models: ['smollm2'] });
      const b = new OpenAiCompatibleBackend({ baseUrl: sim.url, model: 'wrong', adaptive: false, retry: { maxRetries: 0 } });
      const err = await b.complete([{ role: 'user', content: 'نص' }]).then(
        () => null,
        (e: unknown) => e as LlmError,
      );
      expect(err?.reason).to.equal('client_error');
      expect(err?.message).to.equal('HTTP 404: The model `wrong` does not exist. Valid aliases: smollm2.');
    });
  }

  it('nests a flat body (object, message, type, param, code) and leaves others alone', () => {
    expect(JSON.parse(nestedErrorBody('{"object":"error","message":"bad","type":"BadRequest","param":null,"code":400}')!)).to.deep.equal({
      error: { message: 'bad', type: 'BadRequest', param: null, code: 400 },
    });
    expect(nestedErrorBody('{"error":{"message":"x"}}')).to.equal(null);
    expect(nestedErrorBody('not json')).to.equal(null);
    expect(nestedErrorBody('{"detail":"x"}')).to.equal(null);
  });
});
