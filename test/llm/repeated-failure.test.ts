/**
 * A 5xx that repeats for one request while the endpoint serves others is that line's failure (`request_error`,
 * not an outage); an endpoint that serves nobody stays an outage (`server_error`, which the runner and the infer
 * stage pause and resume on: test/workflows/infer-outage.test.ts). Against the simulated box, its `failWith`
 * answering 500 for one OCR line on every attempt (a grammar the server cannot compile).
 */
import { expect } from 'chai';
import { isOutage, OpenAiCompatibleBackend, type LlmError } from '../../src/llm';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';

const user = (content: string) => [{ role: 'user' as const, content }];

describe('llm/repeated-failure: a 5xx of one request vs an outage', () => {
  let sim: SimLlmServer;
  afterEach(async () => sim?.close());

  const backend = (url: string) =>
    new OpenAiCompatibleBackend({
      baseUrl: url,
      model: 'sim',
      adaptive: false,
      concurrency: 4,
      retry: { maxRetries: 2, baseDelayMs: 300, maxDelayMs: 600 },
      timeoutMs: 5000,
    });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e as LlmError,
    );

  it('one line failing 500 on every attempt while others are served: request_error, written as that line’s failure', async () => {
    sim = await startSimLlmServer({ failWith: (ocr) => (ocr === 'سيء' ? 500 : null) });
    const b = backend(sim.url);
    let done = false;
    const bad = failure(b.complete(user('سيء'))).finally(() => (done = true));
    let good = 0;
    while (!done) {
      await b.complete(user(`جيد ${good}`)); // the endpoint keeps serving other lines meanwhile
      good++;
    }
    const err = await bad;
    expect(err?.reason).to.equal('request_error');
    expect(err?.status).to.equal(500);
    expect(err?.attempts).to.equal(3);
    expect(err?.message).to.match(
      /^HTTP 500: simulated failure for this request — on all 3 attempts of this request while the endpoint served \d+ other request\(s\): this line's failure, not an outage$/,
    );
    expect(isOutage(err!.reason), 'not an outage: the runner writes it as a failed line').to.equal(false);
    expect(good).to.be.greaterThan(0);
  });

  it('every request failing 500 (nobody served): server_error, an outage', async () => {
    sim = await startSimLlmServer({ failWith: () => 500 });
    const b = backend(sim.url);
    const errs = await Promise.all([failure(b.complete(user('أ'))), failure(b.complete(user('ب')))]);
    expect(errs.map((e) => e?.reason)).to.deep.equal(['server_error', 'server_error']);
    expect(isOutage('server_error')).to.equal(true);
  });

  it('a single attempt (no retry) cannot tell: server_error', async () => {
    sim = await startSimLlmServer({ failWith: (ocr) => (ocr === 'سيء' ? 500 : null) });
    const b = new OpenAiCompatibleBackend({ baseUrl: sim.url, model: 'sim', adaptive: false, retry: { maxRetries: 0 } });
    await b.complete(user('جيد'));
    expect((await failure(b.complete(user('سيء'))))?.reason).to.equal('server_error');
  });
});
