import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAiCompatibleBackend, type OpenAiBackendOptions } from '../../src/llm/openai-backend';
import { LlmError } from '../../src/llm/types';
import { completion, startFakeServer, type FakeRequest, type FakeResponse, type FakeServer } from './fake-openai-server';

const KEY = 'sk-test-SECRET-1234567890';
const MESSAGES = [
  { role: 'system' as const, content: 'أنت مصحح نصوص عربية متخصص.' },
  { role: 'user' as const, content: 'بلعو واحلة' },
];

async function failureOf(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(LlmError);
    return e as LlmError;
  }
  throw new Error('expected the call to fail');
}

describe('llm/openai-backend (against a local chat-completions server)', function () {
  let server: FakeServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  async function setup(respond: (r: FakeRequest) => FakeResponse | Promise<FakeResponse>, opts: Partial<OpenAiBackendOptions> = {}) {
    server = await startFakeServer(respond);
    const backend = new OpenAiCompatibleBackend({
      baseUrl: server.url,
      model: 'qwen-test',
      apiKeyEnv: 'TEST_LLM_KEY',
      env: { TEST_LLM_KEY: KEY },
      maxTokens: 64,
      timeoutMs: 2000,
      retry: { maxRetries: 3, invalidRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
      random: () => 0.5,
      ...opts,
    });
    return { backend, server };
  }

  it('sends model, messages, temperature 0, max_tokens and the bearer key; returns text, tokens, latency', async () => {
    const { backend, server } = await setup(() => ({ json: completion('قال أبو عثمان', { prompt_tokens: 31, completion_tokens: 9 }) }));
    const res = await backend.complete(MESSAGES);
    expect(res).to.include({ text: 'قال أبو عثمان', promptTokens: 31, completionTokens: 9, attempts: 1 });
    expect(res.latencyMs).to.be.a('number').and.at.least(0);
    expect(server.requests).to.have.length(1);
    const req = server.requests[0];
    expect(req.url).to.equal('/v1/chat/completions');
    expect(req.body).to.include({ model: 'qwen-test', temperature: 0, max_tokens: 64 });
    expect(req.body.messages).to.deep.equal(MESSAGES);
    expect(req.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(backend.model).to.equal('qwen-test');
  });

  it('per-call maxTokens and extraBody reach the server; missing usage gives null token counts', async () => {
    const { backend, server } = await setup(() => ({ json: { choices: [{ message: { content: 'x' } }] } }), {
      extraBody: { chat_template_kwargs: { enable_thinking: false } },
    });
    const res = await backend.complete(MESSAGES, { maxTokens: 7 });
    expect(server.requests[0].body).to.deep.include({ max_tokens: 7, chat_template_kwargs: { enable_thinking: false } });
    expect(res.promptTokens).to.equal(null);
    expect(res.completionTokens).to.equal(null);
  });

  it('retries 429 honouring Retry-After (seconds)', async () => {
    const { backend, server } = await setup((r) =>
      r.n === 1 ? { status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'slow down' } } } : { content: 'ok' },
    );
    const res = await backend.complete(MESSAGES);
    const waited = server.requests[1].at - server.requests[0].at;
    expect(res.attempts).to.equal(2);
    expect(waited).to.be.at.least(950); // not the 5 ms backoff
  });

  it('retries 429 honouring retry-after-ms', async () => {
    const { backend, server } = await setup((r) => (r.n === 1 ? { status: 429, headers: { 'retry-after-ms': '150' } } : { content: 'ok' }));
    await backend.complete(MESSAGES); // read as seconds (150 s), it would outlast the test's timeout
    expect(server.requests[1].at - server.requests[0].at).to.be.at.least(140); // not the 5 ms backoff
  });

  it('retries 5xx with backoff until success', async () => {
    const { backend, server } = await setup((r) =>
      r.n <= 2 ? { status: r.n === 1 ? 500 : 503, raw: 'upstream down', headers: { 'content-type': 'text/plain' } } : { content: 'ok' },
    );
    const res = await backend.complete(MESSAGES);
    expect(res).to.include({ text: 'ok', attempts: 3 });
    expect(server.requests).to.have.length(3);
  });

  it('records server_error with status and attempts when 5xx persists', async () => {
    const { backend, server } = await setup(() => ({ status: 502, json: { error: { message: 'bad gateway' } } }));
    const err = await failureOf(backend.complete(MESSAGES));
    expect(err.toInfo()).to.deep.include({ reason: 'server_error', status: 502, attempts: 4 });
    expect(err.message).to.match(/HTTP 502/);
    expect(server.requests).to.have.length(4); // 1 + maxRetries 3
  });

  it('does not retry 400 (client error)', async () => {
    const { backend, server } = await setup(() => ({ status: 400, json: { error: { message: 'model "qwen-test" does not exist' } } }));
    const err = await failureOf(backend.complete(MESSAGES));
    expect(err.toInfo()).to.deep.include({ reason: 'client_error', status: 400, attempts: 1 });
    expect(err.message).to.include('does not exist');
    expect(server.requests).to.have.length(1);
  });

  it('retries a timeout, then records reason timeout when it persists', async () => {
    const { backend, server } = await setup((r) => (r.n === 1 ? { delayMs: 600, content: 'late' } : { content: 'ok' }), { timeoutMs: 200 });
    const res = await backend.complete(MESSAGES);
    expect(res).to.include({ text: 'ok', attempts: 2 });
    await server.close();
    const slow = await setup(() => ({ delayMs: 600, content: 'late' }), {
      timeoutMs: 100,
      retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 5 },
    });
    const err = await failureOf(slow.backend.complete(MESSAGES));
    expect(err.toInfo()).to.deep.include({ reason: 'timeout', status: null, attempts: 2 });
  });

  it('retries invalid JSON a couple of times, then records invalid_response', async () => {
    const { backend, server } = await setup(() => ({ raw: '{"choices": [ {"message": ' }));
    const err = await failureOf(backend.complete(MESSAGES));
    expect(err.toInfo()).to.deep.include({ reason: 'invalid_response', attempts: 3 });
    expect(err.message).to.match(/invalid JSON/);
    expect(server.requests).to.have.length(3); // 1 + invalidRetries 2
  });

  it('treats a non-JSON body and a body without choices as invalid_response', async () => {
    const html = await setup(() => ({ raw: '<html>proxy error</html>', headers: { 'content-type': 'text/html' } }), {
      retry: { invalidRetries: 0 },
    });
    expect((await failureOf(html.backend.complete(MESSAGES))).reason).to.equal('invalid_response');
    await html.server.close();
    const noChoices = await setup(() => ({ json: { object: 'chat.completion', choices: [] } }), { retry: { invalidRetries: 0 } });
    const err = await failureOf(noChoices.backend.complete(MESSAGES));
    expect(err.reason).to.equal('invalid_response');
    expect(err.message).to.match(/choices/);
  });

  it('retries empty content, then records empty_content (and succeeds when a retry has text)', async () => {
    const { backend, server } = await setup(() => ({ content: '   ' }));
    const err = await failureOf(backend.complete(MESSAGES));
    expect(err.toInfo()).to.deep.include({ reason: 'empty_content', attempts: 3 });
    await server.close();
    const flaky = await setup((r) => (r.n === 1 ? { content: null } : { content: 'ok' }));
    expect((await flaky.backend.complete(MESSAGES)).attempts).to.equal(2);
  });

  it('records connection errors (refused and reset) after retrying', async () => {
    const probe = http.createServer();
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((ok) => probe.close(ok)); // nothing listens there now
    const refused = new OpenAiCompatibleBackend({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'm',
      retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 5 },
    });
    const err = await failureOf(refused.complete(MESSAGES));
    expect(err.toInfo()).to.deep.include({ reason: 'connection', status: null, attempts: 3 });
    expect(err.message).to.match(/ECONNREFUSED|connection/i);

    const { backend, server } = await setup((r) => (r.n === 1 ? { destroy: true } : { content: 'ok' }));
    expect((await backend.complete(MESSAGES)).attempts).to.equal(2);
    expect(server.requests).to.have.length(2);
  });

  it('never puts the API key in a recorded error', async () => {
    // A server that echoes the Authorization header back in its error body.
    const { backend } = await setup((r) => ({ status: 401, json: { error: { message: `invalid api key: ${r.headers.authorization}` } } }));
    const err = await failureOf(backend.complete(MESSAGES));
    expect(err.reason).to.equal('client_error');
    expect(err.message).to.include('[REDACTED]');
    expect(JSON.stringify(err.toInfo())).not.to.include(KEY);
    expect(JSON.stringify(err.toInfo())).not.to.include('SECRET');
  });

  it('requires the named API key variable to be set, without printing any value', () => {
    expect(() => new OpenAiCompatibleBackend({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', apiKeyEnv: 'NOPE_KEY', env: {} })).to.throw(
      /^environment variable NOPE_KEY is not set — set it in the worker's environment$/,
    );
  });

  it('caps in-flight requests at its concurrency', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const { backend } = await setup(
      async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((ok) => setTimeout(ok, 30));
        inFlight--;
        return { content: 'ok' };
      },
      { concurrency: 3 },
    );
    await Promise.all(Array.from({ length: 10 }, () => backend.complete(MESSAGES)));
    expect(maxInFlight).to.equal(3);
  });

  it('leaves no abort listener behind on a long-lived caller signal', async () => {
    // The first 5 requests fail (each call retries at most twice of them), so retries are covered too.
    const { backend } = await setup((r) => (r.n <= 5 ? { status: 500 } : { content: 'ok' }));
    const ac = new AbortController();
    await Promise.all(Array.from({ length: 30 }, () => backend.complete(MESSAGES, { signal: ac.signal })));
    expect(getEventListeners(ac.signal, 'abort')).to.have.length(0);
  });

  it('stops waiting for a retry when the caller aborts', async () => {
    // Retry-After of 10 min: only the abort can end the wait before the test's timeout.
    const { backend, server } = await setup(() => ({ status: 429, headers: { 'retry-after': '600' } }));
    const ac = new AbortController();
    const failing = failureOf(backend.complete(MESSAGES, { signal: ac.signal }));
    while (server.requests.length < 1) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const err = await failing;
    expect(err.reason).to.equal('aborted');
    expect(server.requests).to.have.length(1);
  });
});
