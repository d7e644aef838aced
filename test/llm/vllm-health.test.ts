/**
 * The endpoint checks against the real vLLM (CPU build, models/vllm-tiny: test/helpers/vllm-server.ts): the
 * health gate opens on its `GET /health`; an unknown model is refused before the first correction, in one line
 * naming the model it serves; a prompt over its `max_model_len` is refused before it is sent (counted by its
 * `/tokenize`), so the server never answers it with its own 400. Skipped, saying why, without the venv or model.
 */
import { expect } from 'chai';
import { OpenAiCompatibleBackend, type LlmError } from '../../src/llm';
import { EndpointHealthGate, probeEndpoint } from '../../src/llm/endpoint-health';
import { WorkerSetupError } from '../../src/util/worker-setup-error';
import { sharedVllmServer, vllmSkipReason, type VllmServer, releaseSharedVllmServer } from '../helpers/vllm-server';

describe('llm: endpoint health, model and context checks against the real vLLM', function () {
  after(releaseSharedVllmServer);
  this.timeout(20 * 60_000);
  let server: VllmServer;

  before(async function () {
    const reason = vllmSkipReason();
    if (reason) {
      console.log(`    (skipped: ${reason})`);
      this.skip();
    }
    server = await sharedVllmServer();
  });

  const backend = (model: string) =>
    new OpenAiCompatibleBackend({ baseUrl: server.baseUrl, model, maxTokens: 64, adaptive: false, retry: { maxRetries: 0 } });

  it('the gate opens on its GET /health', async () => {
    expect(await probeEndpoint(server.baseUrl, new AbortController().signal)).to.deep.equal({ up: true, answer: 'GET /health 200' });
    const gate = new EndpointHealthGate({ baseUrl: server.baseUrl, minDelayMs: 10 });
    gate.markDown('connection refused');
    await gate.waitUntilUp(new AbortController().signal);
    expect(gate.isUp).to.equal(true);
  });

  it('an unknown model is refused before the first correction, naming the model it serves', async () => {
    const err = await backend('wrong')
      .preflight()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).to.be.instanceOf(WorkerSetupError);
    expect((err as Error).message).to.match(
      new RegExp(`^model "wrong" is not served at ${server.baseUrl} \\(it serves: ${server.model}\\) — `),
    );
    // What it would have met on every line: vLLM's own 404.
    const direct = await backend('wrong')
      .complete([{ role: 'user', content: 'نص' }])
      .then(
        () => null,
        (e: unknown) => e as LlmError,
      );
    expect(direct?.status).to.equal(404);
    expect(direct?.message).to.match(/The model `wrong` does not exist/);
  });

  it('a prompt over max_model_len is refused before it is sent', async () => {
    const b = backend(server.model);
    await b.preflight();
    const long = [{ role: 'user' as const, content: 'قال ابو بكر الصديق رضى الله عنه '.repeat(200) }];
    const before = server.log().length;
    const err = await b.complete(long).then(
      () => null,
      (e: unknown) => e as LlmError,
    );
    expect(err?.reason).to.equal('context_length');
    expect(err?.message).to.match(
      new RegExp(`exceeds max_model_len ${server.maxModelLen} of ${server.model} \\(counted by POST /tokenize\\); not sent$`),
    );
    expect(server.log().slice(before), 'no chat completion request reached the server').to.not.match(/POST \/v1\/chat\/completions/);
  });
});
