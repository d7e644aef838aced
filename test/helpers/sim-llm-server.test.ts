/** The simulated GPU box: deterministic answers through the real openai backend, latency, concurrency cap, stop/start. */
import { expect } from 'chai';
import { OpenAiCompatibleBackend } from '../../src/llm';
import { buildPrompt } from '../../src/prompts/builder';
import { simEdit, startSimLlmServer, type SimLlmServer } from './sim-llm-server';

describe('sim LLM server (a simulated GPU box)', function () {
  this.timeout(20000);
  let sim: SimLlmServer;
  afterEach(async () => sim?.close());

  const backend = (url: string, concurrency = 8) =>
    new OpenAiCompatibleBackend({ baseUrl: url, model: 'sim-model', concurrency, retry: { maxRetries: 0 }, timeoutMs: 5000 });

  it('answers both prompts with the OCR line after the documented edit, and counts per line', async () => {
    sim = await startSimLlmServer();
    const b = backend(sim.url);
    const ocr = 'قال أبو عثمان فـــي كتابه علي';
    const rag = await b.complete(buildPrompt('rag', ocr, 'سياق مسترجع').messages);
    const zero = await b.complete(buildPrompt('zero_shot', ocr).messages);
    expect(rag.text).to.equal('قال أبو عثمان في كتابه علي');
    expect(zero.text).to.equal(rag.text);
    expect(simEdit('ىـى')).to.equal('يي');
    expect(sim.served()).to.equal(2);
    expect(sim.servedByText().get(ocr)).to.equal(2);
    const models = await fetch(`${sim.url}/models`).then((r) => r.json() as Promise<{ data: { id: string }[] }>);
    expect(models.data[0].id).to.equal('sim');
  });

  it('serves at most `concurrency` requests at once; the rest queue (latency base + per token)', async () => {
    sim = await startSimLlmServer({ baseMs: 100, perTokenMs: 0, concurrency: 2 });
    const b = backend(sim.url, 8);
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 6 }, (_, i) => b.complete(buildPrompt('zero_shot', `سطر ${i}`).messages)));
    const elapsed = Date.now() - t0;
    expect(sim.peakConcurrency()).to.equal(2);
    expect(sim.served()).to.equal(6);
    expect(elapsed).to.be.at.least(290); // 3 rounds of 100 ms through 2 slots
  });

  it('with a knee, batches: latency flat up to the knee, then growing with the requests in flight (throughput flat)', async () => {
    sim = await startSimLlmServer({ baseMs: 200, knee: 4 });
    const b = backend(sim.url, 64);
    const round = async (n: number) => {
      const before = sim.answers().length;
      await Promise.all(Array.from({ length: n }, (_, i) => b.complete(buildPrompt('zero_shot', `سطر ${n} ${i}`).messages)));
      return sim
        .answers()
        .slice(before)
        .map((a) => a.latencyMs);
    };
    const atKnee = await round(4);
    expect(sim.peakConcurrency(), 'all four in flight at once').to.equal(4);
    expect(Math.min(...atKnee)).to.be.at.least(195); // each takes at least the base latency (timers never fire early)
    const twice = await round(8);
    expect(Math.min(...twice)).to.be.at.least(380); // eight share the box: each takes about twice as long
    expect(sim.peakConcurrency()).to.equal(8);
    // Flat up to the knee: the slowest of four, served at full speed, finishes before the fastest of eight sharing it.
    expect(Math.max(...atKnee)).to.be.below(Math.min(...twice));
  });

  it('stop() refuses connections (an outage the backend classifies), start() serves again on the same port', async () => {
    sim = await startSimLlmServer();
    const port = sim.port;
    await sim.stop();
    const err = await backend(sim.url)
      .complete(buildPrompt('zero_shot', 'نص').messages)
      .then(
        () => null,
        (e: unknown) => e as { info?: { reason: string } },
      );
    expect(err).to.not.equal(null);
    expect(String((err as Error).message)).to.match(/connection|ECONNREFUSED/i);
    await sim.start();
    expect(sim.port).to.equal(port);
    expect((await backend(sim.url).complete(buildPrompt('zero_shot', 'نص').messages)).text).to.equal('نص');
    expect(sim.served()).to.equal(1);
  });
});
