/**
 * What the HTTP backend checks before the first correction, against the simulated box answering as vLLM: a model
 * it does not serve is refused in one line naming the ones it serves (no chat request sent); a name it serves
 * passes, Ollama's untagged name matches its `:latest`, a single-model llama.cpp server takes any name; a prompt
 * over the served model's max_model_len is refused before it is sent, counted by the box's /tokenize.
 */
import { expect } from 'chai';
import { OpenAiCompatibleBackend } from '../../src/llm';
import { promptTokenBound } from '../../src/llm/context-limit';
import { servedEntry } from '../../src/llm/served-models';
import { WorkerSetupError } from '../../src/util/worker-setup-error';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { loadSimTokenizer } from '../helpers/sim-tokenizer';

const backend = (url: string, model: string, maxTokens = 64) =>
  new OpenAiCompatibleBackend({ baseUrl: url, model, maxTokens, adaptive: false, retry: { maxRetries: 0 }, timeoutMs: 5000 });

describe('llm/endpoint-checks: the model and the context length, before the first correction', () => {
  let sim: SimLlmServer;
  afterEach(async () => sim?.close());

  it('refuses a model the endpoint does not serve, naming it and the ones served, and sends no correction', async () => {
    sim = await startSimLlmServer({ models: ['smollm2'] });
    const err = await backend(sim.url, 'wrong')
      .preflight()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).to.be.instanceOf(WorkerSetupError);
    expect((err as Error).message).to.equal(
      `model "wrong" is not served at ${sim.url} (it serves: smollm2) — set infer.openai.model (or the worker’s --openai-model) to one of them, or serve that model there`,
    );
    expect(sim.requests()).to.deep.equal([]);
    await backend(sim.url, 'smollm2').preflight(); // served: passes
  });

  it('matches Ollama’s untagged name to its :latest, and lets a single-model llama.cpp server take any name', () => {
    const ollama = [{ id: 'qwen3:latest', ownedBy: 'library', maxModelLen: null }];
    expect(servedEntry('qwen3', ollama)?.id).to.equal('qwen3:latest');
    expect(servedEntry('qwen3:8b', ollama)).to.equal(null);
    const llamacpp = [{ id: 'SmolLM2-135M-Instruct-Q8_0.gguf', ownedBy: 'llamacpp', maxModelLen: null }];
    expect(servedEntry('smollm2', llamacpp)?.id).to.equal('SmolLM2-135M-Instruct-Q8_0.gguf');
    expect(servedEntry('smollm2', [{ ...llamacpp[0], ownedBy: 'vllm' }])).to.equal(null);
  });

  it('an endpoint without a model list is not refused (the requests find out)', async () => {
    sim = await startSimLlmServer();
    await sim.stop();
    await backend(sim.url, 'anything').preflight(); // no answer: nothing to refuse on
  });

  it('refuses a prompt whose tokens + max_tokens exceed max_model_len before it is sent; a prompt that fits is sent', async () => {
    const tokenizer = loadSimTokenizer();
    sim = await startSimLlmServer({ maxModelLen: 256, tokenizer: { api: 'vllm', tokenizer } });
    const b = backend(sim.url, 'sim', 64);
    await b.preflight();
    const short = [{ role: 'user' as const, content: 'نص قصير' }];
    const long = [{ role: 'user' as const, content: 'كلمة '.repeat(300) }];
    expect(promptTokenBound(short) + 64, 'the bound lets a short prompt through without counting').to.be.below(256);
    expect((await b.complete(short)).text).to.equal('نص قصير');
    const err = await b.complete(long).then(
      () => null,
      (e: unknown) => e as { reason: string; message: string },
    );
    expect(err?.reason).to.equal('context_length');
    expect(err?.message).to.match(
      /^prompt of \d+ tokens \+ max_tokens 64 = \d+ tokens exceeds max_model_len 256 of sim \(counted by POST \/tokenize\); not sent$/,
    );
    expect(sim.requests(), 'only the short prompt reached the box').to.have.length(1);
    expect(sim.refused(), 'the box refused nothing: the long prompt never came').to.deep.equal([]);
  });
});
