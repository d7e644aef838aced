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
    new OpenAiCompatibleBackend({ baseUrl: url, model: 'sim', concurrency, retry: { maxRetries: 0 }, timeoutMs: 5000 });

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
    // Eight client slots, six requests at once: the box, not the client, holds them to two in flight.
    await Promise.all(Array.from({ length: 6 }, (_, i) => b.complete(buildPrompt('zero_shot', `سطر ${i}`).messages)));
    expect(sim.peakConcurrency()).to.equal(2);
    expect(sim.served()).to.equal(6);
  });

  it('with a knee, batches: up to the knee each request has the box to itself, beyond it they share it', async () => {
    // What the box did, not how long it took (bench/sim-knee.ts times it): each answer says how many requests were in
    // flight at most while it was served, so its share of the box was min(1, knee / that).
    sim = await startSimLlmServer({ baseMs: 200, knee: 4 });
    const b = backend(sim.url, 64);
    const round = async (n: number) => {
      const before = sim.answers().length;
      await Promise.all(Array.from({ length: n }, (_, i) => b.complete(buildPrompt('zero_shot', `سطر ${n} ${i}`).messages)));
      return sim
        .answers()
        .slice(before)
        .map((a) => a.sharedWith);
    };
    const atKnee = await round(4);
    expect(sim.peakConcurrency(), 'all four in flight at once').to.equal(4);
    expect(
      atKnee.every((n) => n <= 4),
      'none shared the box beyond the knee: full speed each',
    ).to.equal(true);
    const twice = await round(8);
    expect(sim.peakConcurrency()).to.equal(8);
    // All eight were in flight at once, so each was served at knee / 8 = half speed at some point.
    expect(twice).to.deep.equal(Array(8).fill(8));
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
        model: 'sim',
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
        structured_outputs: { json: { type: 'object' } },
      };
      const res = await post(sim.url, body);
      expect(res.status).to.equal(200);
      const answer = (await res.json()) as { choices: { message: { content: string } }[] };
      expect(JSON.parse(answer.choices[0].message.content)).to.deep.equal({ corrected_text: 'نص' });
      expect(sim.requests()).to.deep.equal([body]);
    });

    it('refuses (400) a field of the wrong type and a top-level key vLLM does not declare, and serves neither', async () => {
      sim = await startSimLlmServer();
      const wrongType = await post(sim.url, { model: 'sim', messages, seed: '7' });
      const unknown = await post(sim.url, { model: 'sim', messages, enable_thinking: false });
      const notInt = await post(sim.url, { model: 'sim', messages, max_tokens: 1.5 });
      expect([wrongType.status, unknown.status, notInt.status]).to.deep.equal([400, 400, 400]);
      expect(sim.refused()[0]).to.match(/^seed: /);
      expect(sim.refused()[1]).to.equal('extra inputs are not permitted: enable_thinking');
      expect(sim.refused()[2]).to.match(/^max_tokens: /);
      expect(sim.served()).to.equal(0);
    });

    it('answers with a reasoning trace, another served model and a fingerprint; cuts a line at max_tokens', async () => {
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

    it('answers as current vLLM: `reasoning` on the message (SGLang and llama.cpp: `reasoning_content`)', async () => {
      for (const [kind, field] of [
        ['vllm', 'reasoning'],
        ['sglang', 'reasoning_content'],
        ['llama.cpp', 'reasoning_content'],
      ] as const) {
        sim = await startSimLlmServer({ kind, reasoning: () => 'فكر' });
        const answer = (await (await post(sim.url, { model: 'sim', messages })).json()) as {
          choices: { message: Record<string, unknown> }[];
        };
        const message = answer.choices[0].message;
        expect(
          Object.keys(message).filter((k) => k.startsWith('reasoning')),
          kind,
        ).to.deep.equal([field]);
        await sim.close();
      }
    });

    it('takes the removed guided_* fields with HTTP 200, ignores them and logs vLLM’s warning', async () => {
      sim = await startSimLlmServer();
      const res = await post(sim.url, { model: 'sim', messages, guided_json: { type: 'object' }, guided_regex: 'a+' });
      expect(res.status).to.equal(200);
      const answer = (await res.json()) as { choices: { message: { content: string } }[] };
      expect(answer.choices[0].message.content, 'unconstrained: plain text, not JSON').to.equal('نص');
      expect(sim.log()).to.deep.equal([
        "WARNING Request contains the removed guided-decoding field(s) ['guided_json', 'guided_regex'], which are ignored; " +
          'output will NOT be constrained. Use `structured_outputs` (or `response_format`) instead; see docs/features/structured_outputs.md.',
      ]);
    });

    it('answers 404 NotFoundError for a model it does not serve (flat on SGLang), and lists the ones it serves', async () => {
      sim = await startSimLlmServer({ models: ['smollm2'] });
      const res = await post(sim.url, { model: 'wrong', messages });
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({
        error: { message: 'The model `wrong` does not exist. Valid aliases: smollm2.', type: 'NotFoundError', param: null, code: 404 },
      });
      const models = (await fetch(`${sim.url}/models`).then((r) => r.json())) as { data: { id: string }[] };
      expect(models.data.map((m) => m.id)).to.deep.equal(['smollm2']);
      expect(sim.served()).to.equal(0);
      await sim.close();
      sim = await startSimLlmServer({ kind: 'sglang', models: ['smollm2'] });
      const flat = (await (await post(sim.url, { model: 'wrong', messages })).json()) as Record<string, unknown>;
      expect(flat).to.include({ object: 'error', type: 'NotFoundError', code: 404 });
    });

    it('serves /health (200, no body) and /version at the server root', async () => {
      sim = await startSimLlmServer({ version: '0.32.0' });
      const root = sim.url.replace(/\/v1$/, '');
      const health = await fetch(`${root}/health`);
      expect([health.status, await health.text()]).to.deep.equal([200, '']);
      expect(await (await fetch(`${root}/version`)).json()).to.deep.equal({ version: '0.32.0' });
    });

    it('refuses (400) a prompt whose tokens plus max_tokens exceed maxModelLen, serving nothing', async () => {
      sim = await startSimLlmServer({ maxModelLen: 64 });
      const ok = await post(sim.url, { model: 'sim', messages, max_tokens: 32 });
      const over = await post(sim.url, { model: 'sim', messages, max_tokens: 64 });
      expect([ok.status, over.status]).to.deep.equal([200, 400]);
      expect(sim.refused()[0]).to.match(/maximum context length is 64 tokens/);
      expect(sim.served()).to.equal(1);
    });
  });
});
