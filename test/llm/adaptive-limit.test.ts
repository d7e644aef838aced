/**
 * The adaptive concurrency limit against a simulated continuous-batching box in virtual time (processor sharing:
 * full speed per request up to the knee, knee / in-flight beyond), so the test is exact and instant; and the
 * endpoint limiter's queue (FIFO, abort, never over the limit).
 */
import { expect } from 'chai';
import { AdaptiveLimit, median } from '../../src/llm/adaptive-limit';
import { EndpointLimiter } from '../../src/llm/endpoint-limiter';

/** What the box sees of a client: how many it may send now, and how each request ended. */
interface Client {
  readonly limit: number;
  readonly epoch: number;
  admitted(inFlight: number): void;
  ended(epoch: number, outcome: { kind: 'ok'; latencyMs: number } | { kind: 'overload' }): void;
}

function fixed(limit: number): Client {
  return { limit, epoch: 0, admitted: () => undefined, ended: () => undefined };
}

interface BoxRun {
  /** Answers per ms over the second half of the run. */
  rate: number;
  /** Median latency (ms) of the answers in the second half. */
  latency: number;
  maxInFlight: number;
}

/**
 * Clients with endless demand against one box for `ms` of virtual time; `kneeAt(t)` lets a test change the box.
 * `overloadAbove`: the box answers 503 at once to requests beyond that many in flight.
 */
function runBox(
  clients: Client[],
  o: { baseMs: number; ms: number; kneeAt: (t: number) => number; overloadAbove?: number; stopAt?: number[] },
): BoxRun {
  let t = 0;
  let virtual = 0;
  const jobs: { finish: number; start: number; epoch: number; client: number }[] = [];
  const inFlight = clients.map(() => 0);
  let maxInFlight = 0;
  const late: { at: number; latency: number }[] = [];
  const admit = () => {
    for (let progress = true; progress;) {
      progress = false;
      clients.forEach((c, i) => {
        if (inFlight[i] >= c.limit || t >= (o.stopAt?.[i] ?? Infinity)) return;
        progress = true;
        inFlight[i]++;
        c.admitted(inFlight[i]);
        if (o.overloadAbove !== undefined && jobs.length >= o.overloadAbove) {
          inFlight[i]--;
          c.ended(c.epoch, { kind: 'overload' });
          return;
        }
        jobs.push({ finish: virtual + o.baseMs, start: t, epoch: c.epoch, client: i });
        maxInFlight = Math.max(maxInFlight, jobs.length);
      });
    }
  };
  admit();
  while (t < o.ms) {
    const speed = Math.min(1, o.kneeAt(t) / jobs.length);
    const first = Math.min(...jobs.map((j) => j.finish));
    t += (first - virtual) / speed;
    virtual = first;
    for (let i = jobs.length - 1; i >= 0; i--) {
      const j = jobs[i];
      if (j.finish > virtual + 1e-9) continue;
      jobs.splice(i, 1);
      inFlight[j.client]--;
      if (t > o.ms / 2) late.push({ at: t, latency: t - j.start });
      clients[j.client].ended(j.epoch, { kind: 'ok', latencyMs: t - j.start });
    }
    admit();
  }
  return { rate: late.length / (o.ms / 2), latency: median(late.map((x) => x.latency)), maxInFlight };
}

describe('adaptive concurrency limit (continuous-batching box in virtual time)', () => {
  const baseMs = 100;
  const peak = (knee: number) => knee / baseMs;

  for (const knee of [8, 64, 256]) {
    it(`finds a knee of ${knee}: ≥ 95 % of the box's peak, latency within 1.75× the knee latency (tolerance 1.5 + one growth step)`, () => {
      const limit = new AdaptiveLimit({ max: 256 });
      const r = runBox([limit], { baseMs, ms: 120_000, kneeAt: () => knee });
      expect(r.rate / peak(knee)).to.be.at.least(0.95);
      expect(r.latency / baseMs).to.be.at.most(1.75);
      expect(limit.limit).to.be.within(knee, Math.min(256, 2 * knee));
    });
  }

  it('fails without it: a fixed 8 in flight gets an eighth of a knee-64 box, where the adaptive limit gets ≥ 95 %', () => {
    const fixedRun = runBox([fixed(8)], { baseMs, ms: 60_000, kneeAt: () => 64 });
    expect(fixedRun.rate / peak(64)).to.be.closeTo(8 / 64, 0.01);
    const adaptive = runBox([new AdaptiveLimit({ max: 256 })], { baseMs, ms: 60_000, kneeAt: () => 64 });
    expect(adaptive.rate / peak(64)).to.be.at.least(0.95);
  });

  it('never exceeds its maximum, even when the box could take far more', () => {
    const limit = new AdaptiveLimit({ max: 32 });
    const r = runBox([limit], { baseMs, ms: 30_000, kneeAt: () => 1000 });
    expect(r.maxInFlight).to.equal(32);
    expect(limit.limit).to.equal(32);
    expect(r.rate / (32 / baseMs)).to.be.at.least(0.99);
  });

  it('backs off when the latency rises: the box drops from knee 128 to 16 and the latency comes back under 1.75×', () => {
    const limit = new AdaptiveLimit({ max: 256 });
    const r = runBox([limit], { baseMs, ms: 120_000, kneeAt: (t) => (t < 30_000 ? 128 : 16) });
    expect(limit.limit).to.be.within(16, 32);
    expect(r.latency / baseMs).to.be.at.most(1.75);
    expect(r.rate / peak(16)).to.be.at.least(0.95);
  });

  it('halves on an overload answer, once per window, and stays under the point where the box refuses', () => {
    const limit = new AdaptiveLimit({ max: 256, initial: 64 });
    const epoch = limit.epoch;
    limit.ended(epoch, { kind: 'overload' });
    expect(limit.limit).to.equal(32);
    limit.ended(epoch, { kind: 'overload' }); // the same window's other failures: already answered
    expect(limit.limit).to.equal(32);
    const box = new AdaptiveLimit({ max: 256 });
    const r = runBox([box], { baseMs, ms: 60_000, kneeAt: () => 1000, overloadAbove: 40 });
    expect(box.limit).to.be.at.most(40);
    expect(r.rate / (40 / baseMs)).to.be.at.least(0.6);
  });

  it('after an outage (every request refused) it sits at its floor, then finds the knee again within seconds', () => {
    const limit = new AdaptiveLimit({ max: 256, initial: 128 });
    for (let i = 0; i < 10; i++) limit.ended(limit.epoch, { kind: 'overload' });
    expect(limit.limit).to.equal(4);
    const r = runBox([limit], { baseMs, ms: 20_000, kneeAt: () => 64 });
    expect(r.rate / peak(64)).to.be.at.least(0.95);
  });

  it('two workers sharing one box keep its latency under 2× the knee latency and the box at its peak', () => {
    const a = new AdaptiveLimit({ max: 256 });
    const b = new AdaptiveLimit({ max: 256 });
    const r = runBox([a, b], { baseMs, ms: 120_000, kneeAt: () => 64 });
    expect(r.latency / baseMs).to.be.below(2);
    expect(r.rate / peak(64)).to.be.at.least(0.95);
  });

  it('takes back the room another worker leaves: alone again, the remaining worker gets the whole box', () => {
    const a = new AdaptiveLimit({ max: 256 });
    const b = new AdaptiveLimit({ max: 256 });
    const r = runBox([a, b], { baseMs, ms: 120_000, kneeAt: () => 64, stopAt: [Infinity, 50_000] });
    expect(a.limit).to.be.at.least(64);
    expect(r.rate / peak(64)).to.be.at.least(0.95);
  });

  it('refuses a maximum or tolerance that cannot work', () => {
    expect(() => new AdaptiveLimit({ max: 0 })).to.throw(/max must be an integer >= 1/);
    expect(() => new AdaptiveLimit({ max: 8, tolerance: 1 })).to.throw(/tolerance must be > 1/);
  });
});

describe('endpoint limiter (queue in front of the adaptive limit)', () => {
  it('admits in FIFO order, never more than the limit, and a waiter whose signal fires leaves the queue', async () => {
    const l = new EndpointLimiter({ max: 2, initial: 2 });
    const order: number[] = [];
    const permits = await Promise.all([l.acquire(), l.acquire()]);
    expect(l.load().inFlight).to.equal(2);
    const abort = new AbortController();
    const waiting = [1, 2, 3].map((i) => l.acquire(i === 2 ? abort.signal : undefined).then((p) => (order.push(i), p)));
    const aborted = waiting[1].then(
      () => 'admitted',
      (e: Error) => e.name,
    );
    expect(l.load().queued).to.equal(3);
    abort.abort();
    expect(await aborted).to.equal('AbortedError');
    permits[0].done('ok');
    permits[1].done('ok');
    const [p1, p3] = await Promise.all([waiting[0], waiting[2]]);
    expect(order).to.deep.equal([1, 3]);
    expect(l.load()).to.include({ inFlight: 2, queued: 0 });
    p1.done('ok');
    p1.done('ok'); // a second `done` is a no-op
    expect(l.load().inFlight).to.equal(1);
    p3.done('ignore');
    expect(l.load().inFlight).to.equal(0);
  });

  it('integrates requests in flight over time (mean in flight = Δ inFlightMs / Δ atMs)', async () => {
    let now = 0;
    const l = new EndpointLimiter({ max: 4, initial: 4 }, () => now);
    const p = await Promise.all([l.acquire(), l.acquire()]);
    now = 1000;
    p[0].done('ok');
    now = 2000;
    const load = l.load();
    expect(load.inFlightMs).to.equal(2 * 1000 + 1 * 1000);
    expect(load.atMs).to.equal(2000);
    p[1].done('ok');
  });
});
