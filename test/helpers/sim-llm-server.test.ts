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

  describe('requests as vLLM checks them, answers as a real box gives them', () => {
    const post = (url: string, body: unknown) =>
      fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const messages = [{ role: 'user', content: 'نص' }];

    it('takes every decoding field vLLM declares, with its type, and records the body', async () => {
      sim = await startSimLlmServer();
      const body = {
        model: 'm',
        messages,
        temperature: 0.2,
        top_p: 0.9,
        seed: 7,
        max_tokens: 32,
        stop: ['\n\n'],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'c', schema: { type: 'object', properties: { corrected_text: { type: 'string' } } } },
        },
        chat_template_kwargs: { enable_thinking: false },
        guided_json: { type: 'object' },
      };
      const res = await post(sim.url, body);
      expect(res.status).to.equal(200);
      const answer = (await res.json()) as { choices: { message: { content: string } }[] };
      expect(JSON.parse(answer.choices[0].message.content)).to.deep.equal({ corrected_text: 'نص' });
      expect(sim.requests()).to.deep.equal([body]);
    });

    it('refuses (400) a field of the wrong type and a top-level key vLLM does not declare, and serves neither', async () => {
      sim = await startSimLlmServer();
      const wrongType = await post(sim.url, { model: 'm', messages, seed: '7' });
      const unknown = await post(sim.url, { model: 'm', messages, enable_thinking: false });
      const notInt = await post(sim.url, { model: 'm', messages, max_tokens: 1.5 });
      expect([wrongType.status, unknown.status, notInt.status]).to.deep.equal([400, 400, 400]);
      expect(sim.refused()[0]).to.match(/^seed: /);
      expect(sim.refused()[1]).to.equal('extra inputs are not permitted: enable_thinking');
      expect(sim.refused()[2]).to.match(/^max_tokens: /);
      expect(sim.served()).to.equal(0);
    });

    it('answers with reasoning_content, another served model and a fingerprint; cuts a line at max_tokens', async () => {
      sim = await startSimLlmServer({
        servedModel: 'other/weights',
        systemFingerprint: 'fp-1',
        reasoning: (ocr) => `أفكر في ${ocr}`,
        truncate: (ocr) => ocr === 'طويل',
      });
      const b = backend(sim.url);
      const ok = await b.complete([{ role: 'user', content: 'نص' }]);
      expect(ok).to.include({
        text: 'نص',
        servedModel: 'other/weights',
        systemFingerprint: 'fp-1',
        finishReason: 'stop',
        reasoning: 'أفكر في نص',
      });
      const cut = await b.complete([{ role: 'user', content: 'طويل' }]);
      expect(cut).to.include({ text: '', finishReason: 'length', reasoning: 'أفكر في طويل' });
    });
  });
});
