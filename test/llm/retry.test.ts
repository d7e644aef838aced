import { expect } from 'chai';
import { AbortedError, backoffDelay, classifyStatus, parseRetryAfter, sleep } from '../../src/llm/retry';

describe('llm/retry', () => {
  it('backoff doubles per retry, is capped, and is jittered within [step/2, step]', () => {
    const p = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, p, () => 0))).to.deep.equal([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, p, () => 1))).to.deep.equal([100, 200, 400, 800, 1000, 1000]);
    for (let i = 0; i < 50; i++) expect(backoffDelay(3, p)).to.be.within(200, 400);
  });

  it('parses Retry-After seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }))).to.equal(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }))).to.equal(500);
    expect(parseRetryAfter({ 'Retry-After': '3' })).to.equal(3000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:07 GMT' }), now)).to.equal(7000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }), now)).to.equal(0);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).to.equal(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).to.equal(null);
    expect(parseRetryAfter(new Headers())).to.equal(null);
    expect(parseRetryAfter(undefined)).to.equal(null);
  });

  it('classifies statuses: 429/5xx/408 retryable, other 4xx not', () => {
    expect(classifyStatus(429)).to.deep.equal({ reason: 'rate_limited', retryable: true });
    expect(classifyStatus(500)).to.deep.equal({ reason: 'server_error', retryable: true });
    expect(classifyStatus(503)).to.deep.equal({ reason: 'server_error', retryable: true });
    expect(classifyStatus(408)).to.deep.equal({ reason: 'server_error', retryable: true });
    for (const s of [400, 401, 403, 404, 422]) expect(classifyStatus(s)).to.deep.equal({ reason: 'client_error', retryable: false });
  });

  it('sleep resolves after the delay and rejects at once when aborted', async () => {
    const t0 = Date.now();
    await sleep(30);
    expect(Date.now() - t0).to.be.at.least(25);
    // Aborted while it waits: rejects on the abort, long before its 10 min (without it, the test times out).
    const ac = new AbortController();
    const waiting = sleep(600_000, ac.signal);
    ac.abort();
    await waiting.then(
      () => expect.fail('should reject'),
      (e) => expect(e).to.be.instanceOf(AbortedError),
    );
  });
});
