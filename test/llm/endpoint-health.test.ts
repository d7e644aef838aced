/**
 * The endpoint health gate against a real HTTP server on 127.0.0.1: up/down transitions, the probe's backoff
 * (measured from the server's request times), what counts as up (a llama.cpp server still loading its model is
 * not), aborts (and that probing stops with its last waiter), and the gated slots' reserve / tryReserve / release.
 */
import { expect } from 'chai';
import http from 'node:http';
import { mock } from 'node:test';
import type { AddressInfo, Socket } from 'node:net';
import { EndpointHealthGate, GatedSlots, healthUrl, httpProbe, modelsUrl, probeEndpoint, type Probe } from '../../src/llm/endpoint-health';

const tick = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

interface Box {
  url: string;
  /** The status GET /v1/models answers with; `hang`: never answers. */
  status: number | 'hang';
  requests: { at: number; url: string; authorization?: string }[];
  /** Calls `listener` when a client connection to the box closes. */
  onConnectionClose(listener: () => void): void;
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function startBox(status: number | 'hang' = 200): Promise<Box> {
  let port = 0;
  let server: http.Server | null = null;
  const sockets = new Set<Socket>();
  const closeListeners: (() => void)[] = [];
  const box: Box = {
    url: '',
    status,
    requests: [],
    onConnectionClose(listener) {
      closeListeners.push(listener);
    },
    async start() {
      const s = http.createServer((req, res) => {
        box.requests.push({ at: Date.now(), url: req.url ?? '', authorization: req.headers.authorization });
        if (box.status === 'hang') return;
        res.writeHead(box.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [] }));
      });
      s.on('connection', (sock) => {
        sockets.add(sock);
        sock.on('close', () => {
          sockets.delete(sock);
          for (const l of closeListeners) l();
        });
      });
      await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', () => resolve()));
      port = (s.address() as AddressInfo).port;
      box.url = `http://127.0.0.1:${port}/v1`;
      server = s;
    },
    async stop() {
      const s = server;
      server = null;
      if (!s) return;
      const closed = new Promise<void>((r) => s.close(() => r()));
      for (const sock of sockets) sock.destroy();
      await closed;
    },
  };
  await box.start();
  return box;
}

/** A gate on `box` with fast delays, recording its pause / resume calls. */
function gateOn(box: Box, minDelayMs = 40, maxDelayMs = 160, probe?: Probe) {
  const events: string[] = [];
  const gate = new EndpointHealthGate({
    baseUrl: box.url,
    probe,
    minDelayMs,
    maxDelayMs,
    probeTimeoutMs: 300,
    onPause: (reason) => events.push(`pause: ${reason}`),
    onResume: (_ms, probes) => events.push(`resume after ${probes} probe(s)`),
  });
  return { gate, events };
}

describe('llm/endpoint-health', () => {
  const boxes: Box[] = [];
  const box = async (status: number | 'hang' = 200) => {
    const b = await startBox(status);
    boxes.push(b);
    return b;
  };
  afterEach(async () => {
    for (const b of boxes.splice(0)) await b.stop();
  });

  it('starts up: waitUntilUp resolves at once, without probing', async () => {
    const b = await box();
    const { gate, events } = gateOn(b);
    expect(gate.isUp).to.equal(true);
    await gate.waitUntilUp(new AbortController().signal);
    expect(b.requests).to.have.length(0);
    expect(events).to.deep.equal([]);
  });

  it('down → probes GET /health without credentials → up when it answers 2xx', async () => {
    const b = await box(503); // llama.cpp while it loads a model
    const { gate, events } = gateOn(b, 20, 40);
    gate.markDown('connection refused');
    gate.markDown('again'); // already down: no second pause
    expect(gate.isUp).to.equal(false);
    const up = gate.waitUntilUp(new AbortController().signal);
    while (b.requests.length < 3 && !gate.isUp) await tick(5);
    expect(gate.isUp, 'a 503 is down').to.equal(false);
    b.status = 200;
    await up;
    expect(gate.isUp).to.equal(true);
    expect(events).to.deep.equal(['pause: connection refused', `resume after ${b.requests.length} probe(s)`]);
    expect(b.requests.every((r) => r.url === '/health' && r.authorization === undefined)).to.equal(true);
  });

  describe('a llama.cpp server loading its model (GET /health 503 "Loading model", GET /v1/models 200)', () => {
    // tools/server/server-http.cpp in ggml-org/llama.cpp: while the model loads, every route answers 503 except
    // /models and /v1/models; /health answers 200 once it is ready.
    let loading = true;
    let server: http.Server;
    let url = '';
    const seen: string[] = [];
    before(async () => {
      server = http.createServer((req, res) => {
        seen.push(req.url ?? '');
        const json = (status: number, body: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.url === '/v1/models')
          return json(200, { object: 'list', data: [{ id: 'smollm2', object: 'model', owned_by: 'llamacpp' }] });
        if (loading) return json(503, { error: { message: 'Loading model', type: 'unavailable_error', code: 503 } });
        if (req.url === '/health') return json(200, { status: 'ok' });
        return json(404, { error: { message: 'File Not Found', type: 'not_found_error', code: 404 } });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    it('the probe says down while it loads (its /v1/models answering 200 notwithstanding), up once /health is 200', async () => {
      loading = true;
      expect(await httpProbe(url)(new AbortController().signal)).to.equal(false);
      expect(await fetch(`${url}/models`).then((r) => r.status), 'GET …/models alone would say up').to.equal(200);
      loading = false;
      expect(await httpProbe(url)(new AbortController().signal)).to.equal(true);
    });

    it('the gate stays shut while the model loads and opens when it is ready', async () => {
      loading = true;
      seen.length = 0;
      const gate = new EndpointHealthGate({ baseUrl: url, minDelayMs: 10, maxDelayMs: 20 });
      gate.markDown('connection refused');
      const up = gate.waitUntilUp(new AbortController().signal);
      while (seen.filter((u) => u === '/health').length < 3) await tick(5); // three probes answered "Loading model"
      expect(gate.isUp, 'not open while loading').to.equal(false);
      loading = false;
      await up;
      expect(gate.isUp).to.equal(true);
    });
  });

  it('a server without /health (404 there: Ollama, hosted APIs) is asked GET …/models, up below 500', async () => {
    const server = http.createServer((req, res) => res.writeHead(req.url === '/v1/models' ? 401 : 404).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      expect(await probeEndpoint(url, new AbortController().signal)).to.deep.equal({
        up: true,
        answer: 'GET /health 404, GET …/models 401',
      });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('the probe backoff doubles from minDelayMs and stays at maxDelayMs (on a mocked clock: probes counted per tick)', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let answer = false;
      const probes: number[] = [];
      let clock = 0;
      const gate = new EndpointHealthGate({
        baseUrl: 'http://unused/v1',
        minDelayMs: 100,
        maxDelayMs: 400,
        probe: async () => (probes.push(clock), answer),
      });
      gate.markDown('down');
      let resumed = false;
      const up = gate.waitUntilUp(new AbortController().signal).then(() => (resumed = true));
      const advance = async (ms: number) => {
        clock += ms;
        mock.timers.tick(ms);
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r)); // let the probe's promise settle
      };
      // Each delay: one millisecond short sees no new probe, the full delay sees exactly one.
      for (const delay of [100, 200, 400, 400, 400]) {
        const before = probes.length;
        await advance(delay - 1);
        expect(probes.length, `${delay - 1} ms into a ${delay} ms wait`).to.equal(before);
        await advance(1);
        expect(probes.length, `after a ${delay} ms wait`).to.equal(before + 1);
      }
      expect(probes).to.deep.equal([100, 300, 700, 1100, 1500]); // a doubled 800 would not probe at 1100
      answer = true;
      await advance(400);
      await up;
      expect(resumed && gate.isUp).to.equal(true);
      expect(probes).to.have.length(6);
    } finally {
      mock.timers.reset();
    }
  });

  it('a refused connection and a probe without an answer count as down; any status below 500 (401) as up', async () => {
    const b = await box();
    await b.stop();
    const refused = httpProbe(b.url, 300);
    expect(await refused(new AbortController().signal)).to.equal(false);
    await b.start(); // same port
    b.status = 'hang';
    const closed = new Promise<void>((r) => b.onConnectionClose(r));
    expect(await httpProbe(b.url, 200)(new AbortController().signal)).to.equal(false);
    expect(b.requests, 'the request reached the box, which never answered').to.have.length(1);
    await closed; // the probe gave up on its request: the client closed the connection
    b.status = 401; // vLLM started with --api-key: the probe sends none, the server answers
    expect(await httpProbe(b.url)(new AbortController().signal)).to.equal(true);
    b.status = 500;
    expect(await httpProbe(b.url)(new AbortController().signal)).to.equal(false);
  });

  it('resumes when a box that refused connections comes back on its port', async () => {
    const b = await box();
    await b.stop();
    let refused = 0;
    const probe = httpProbe(b.url, 300);
    const { gate, events } = gateOn(b, 20, 40, async (signal) => {
      const isUp = await probe(signal);
      if (!isUp) refused++;
      return isUp;
    });
    gate.markDown('connection: ECONNREFUSED');
    const up = gate.waitUntilUp(new AbortController().signal);
    while (refused < 3) await tick(5); // three refused probes, however long the machine takes for them
    expect(gate.isUp).to.equal(false);
    await b.start();
    await up;
    expect(events).to.have.length(2);
    expect(events[1]).to.match(/^resume after \d+ probe\(s\)$/);
    expect(Number(/(\d+)/.exec(events[1])?.[1])).to.be.greaterThan(2);
  });

  it('abort: waitUntilUp rejects with the signal’s reason, and probing stops with the last waiter', async () => {
    const b = await box(503);
    const { gate } = gateOn(b, 20, 20);
    gate.markDown('down');
    const [a1, a2] = [new AbortController(), new AbortController()];
    const w1 = gate.waitUntilUp(a1.signal);
    const w2 = gate.waitUntilUp(a2.signal);
    while (b.requests.length < 2) await tick(5);
    const reason = new Error('Request Cancelled');
    a1.abort(reason);
    expect(
      await w1.then(
        () => 'resolved',
        (e: unknown) => e,
      ),
    ).to.equal(reason);
    const seen = b.requests.length;
    while (b.requests.length <= seen) await tick(5); // one waiter left: still probing
    a2.abort('bye');
    expect(
      await w2.then(
        () => 'resolved',
        (e: unknown) => e,
      ),
    ).to.equal('bye');
    await tick(30); // a probe in flight may still land
    const after = b.requests.length;
    await tick(120);
    expect(b.requests.length, 'no waiters: no probes').to.equal(after);
    expect(gate.isUp).to.equal(false);
    // An already aborted signal rejects at once and starts no probing.
    await tick(0);
    const gone = new AbortController();
    gone.abort('late');
    expect(
      await gate.waitUntilUp(gone.signal).then(
        () => 'resolved',
        (e: unknown) => e,
      ),
    ).to.equal('late');
    await tick(80);
    expect(b.requests.length).to.equal(after);
  });

  it('gated slots: at most `size` at once, none while down (reserve waits, tryReserve refuses), back when up', async () => {
    const b = await box(503);
    const { gate } = gateOn(b, 20, 40);
    const slots = new GatedSlots(2, gate);
    const signal = new AbortController().signal;
    await slots.reserve(signal);
    expect(slots.tryReserve()).to.equal(true);
    expect(slots.tryReserve(), 'full').to.equal(false);
    let third = false;
    const pending = slots.reserve(signal).then(() => (third = true));
    await tick(20);
    expect(third).to.equal(false);
    slots.release();
    await pending;
    expect(slots.inUse).to.equal(2);

    gate.markDown('outage');
    slots.release();
    slots.release();
    expect(slots.inUse).to.equal(0);
    expect(slots.tryReserve(), 'down: a free slot is not handed out').to.equal(false);
    let got = 0;
    const waiting = [slots.reserve(signal), slots.reserve(signal), slots.reserve(signal)].map((p) => p.then(() => got++));
    await tick(100);
    expect(got, 'down: reserve waits').to.equal(0);
    b.status = 200;
    await Promise.all(waiting.slice(0, 2));
    await tick(10);
    expect(got, 'up: two slots, the third waits for a release').to.equal(2);
    slots.release();
    await Promise.all(waiting);
    expect(slots.inUse).to.equal(2);
  });

  it('an aborted reservation rejects with the reason and takes no slot', async () => {
    const b = await box();
    const { gate } = gateOn(b);
    const slots = new GatedSlots(1, gate);
    await slots.reserve(new AbortController().signal);
    const ac = new AbortController();
    const p = slots.reserve(ac.signal);
    ac.abort('shutdown');
    expect(
      await p.then(
        () => 'resolved',
        (e: unknown) => e,
      ),
    ).to.equal('shutdown');
    slots.release();
    expect(slots.inUse).to.equal(0);
    expect(slots.tryReserve()).to.equal(true);
  });

  it('modelsUrl: /models under the base path, query kept, credentials moved to a header', () => {
    expect(modelsUrl('http://127.0.0.1:8000/v1')).to.deep.equal({ url: 'http://127.0.0.1:8000/v1/models', headers: {} });
    expect(modelsUrl('http://box:8000/v1/?api-version=2')).to.deep.equal({ url: 'http://box:8000/v1/models?api-version=2', headers: {} });
    const withUser = modelsUrl('https://user:p%40ss@box/v1');
    expect(withUser.url).to.equal('https://box/v1/models');
    expect(withUser.headers.authorization).to.equal(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    expect(healthUrl('http://127.0.0.1:8000/v1').url).to.equal('http://127.0.0.1:8000/health');
    expect(healthUrl('https://openrouter.ai/api/v1/').url).to.equal('https://openrouter.ai/api/health');
  });
});
