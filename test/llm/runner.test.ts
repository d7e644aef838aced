import { expect } from 'chai';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RAG_SYSTEM_V1, ZERO_SHOT_SYSTEM_V1 } from '../../src/prompts/builder';
import { OpenAiCompatibleBackend } from '../../src/llm/openai-backend';
import { CORRECTION_KEYS, type CorrectionRecord, type InferenceInputRow } from '../../src/llm/records';
import { validateCorrectionsFile } from '../../src/llm/record-files';
import { LlmUnavailableError, RunCorrectionsError, runCorrections } from '../../src/llm/runner';
import { LlmError, type ChatMessage, type CompletionResult, type LlmBackend } from '../../src/llm/types';
import { startFakeServer } from './fake-openai-server';

/** In-memory backend: answers "<think>…</think>" + a label + the user text upper-cased marker, records calls. */
class MockBackend implements LlmBackend {
  readonly id = 'mock';
  readonly model = 'mock-model';
  calls: ChatMessage[][] = [];
  constructor(
    readonly concurrency = 1,
    private readonly behave: (user: string, n: number) => Promise<string> | string = (u) => `<think>x</think>النص المصحح: ${u}!`,
  ) {}
  async complete(messages: ChatMessage[], opts: { signal?: AbortSignal } = {}): Promise<CompletionResult> {
    this.calls.push(messages);
    if (opts.signal?.aborted) throw new LlmError('aborted', 'aborted');
    const user = messages[messages.length - 1].content;
    const text = await this.behave(user, this.calls.length);
    return { text, promptTokens: 10, completionTokens: 3, latencyMs: 1, attempts: 1 };
  }
  async close() {}
}

function inputs(n: number, ctx = (i: number) => (i % 3 === 2 ? '' : `نصوص مرجعية صحيحة:\n1. مرجع ${i}`)): InferenceInputRow[] {
  return Array.from({ length: n }, (_, i) => ({
    sample_id: `DS/${String(i).padStart(3, '0')}`,
    dataset: i < n / 2 ? 'DS-A' : 'DS-B',
    ocr_text: `نص ${i}`,
    gt_text: `نص صحيح ${i}`,
    prompt_type: 'rag',
    retrieval_context: ctx(i),
    retrieved_k: 1,
    retrieval_scores: [0.5],
  }));
}

const readOut = (file: string): CorrectionRecord[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('llm/runner: runCorrections', function () {
  let dir: string;
  let out: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-'));
    out = path.join(dir, 'corrections.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one record per sample, in input order, with the documented key order and cleaned text', async () => {
    const backend = new MockBackend();
    const progress: [number, number][] = [];
    const s = await runCorrections({
      inputPath: inputs(6),
      outputPath: out,
      backend,
      prompt: 'rag',
      progress: 'silent',
      onProgress: (d, t) => progress.push([d, t]),
    });
    const recs = readOut(out);
    expect(recs.map((r) => r.sample_id)).to.deep.equal(inputs(6).map((r) => r.sample_id));
    // The answer's <think> block is the record's `reasoning`, just before `error`.
    expect(Object.keys(recs[0])).to.deep.equal([...CORRECTION_KEYS.slice(0, -1), 'reasoning', 'error']);
    expect(recs[0]).to.deep.equal({
      sample_id: 'DS/000',
      dataset: 'DS-A',
      prompt_type: 'rag',
      prompt_version: 'p5v1',
      model: 'mock-model',
      ocr_text: 'نص 0',
      gt_text: 'نص صحيح 0',
      corrected_text: 'نص 0!',
      raw_output: '<think>x</think>النص المصحح: نص 0!',
      latency_ms: 1,
      prompt_tokens: 10,
      completion_tokens: 3,
      reasoning: 'x',
      error: null,
    });
    // Sample 2 has an empty context: zero-shot fallback.
    expect(recs[2]).to.include({ prompt_type: 'zero_shot_fallback', prompt_version: 'v1' });
    expect(backend.calls[0][0].content).to.equal(RAG_SYSTEM_V1.replace('{retrieval_context}', 'نصوص مرجعية صحيحة:\n1. مرجع 0'));
    expect(backend.calls[2][0].content).to.equal(ZERO_SHOT_SYSTEM_V1);
    expect(s).to.include({
      written: 6,
      succeeded: 6,
      failed: 0,
      skippedExisting: 0,
      remaining: 0,
      promptTokens: 60,
      completionTokens: 18,
      aborted: false,
    });
    expect(s.promptTypes).to.deep.equal({ rag: 4, zero_shot_fallback: 2 });
    expect(progress[0]).to.deep.equal([0, 6]);
    expect(progress[progress.length - 1]).to.deep.equal([6, 6]);
    expect((await validateCorrectionsFile(out)).ok).to.equal(true);
  });

  it('zero_shot condition ignores the retrieval context (Phase 2 baseline)', async () => {
    const backend = new MockBackend();
    await runCorrections({ inputPath: inputs(3), outputPath: out, backend, prompt: 'zero_shot', progress: 'silent' });
    expect(readOut(out).map((r) => [r.prompt_type, r.prompt_version])).to.deep.equal([
      ['zero_shot', 'v1'],
      ['zero_shot', 'v1'],
      ['zero_shot', 'v1'],
    ]);
    expect(backend.calls.every((m) => m[0].content === ZERO_SHOT_SYSTEM_V1)).to.equal(true);
  });

  it('resumes after a stop mid-way: exactly one record per sample, done ones are not re-sent', async () => {
    const input = inputs(10);
    const first = new MockBackend(2);
    const s1 = await runCorrections({ inputPath: input, outputPath: out, backend: first, prompt: 'rag', limit: 4, progress: 'silent' });
    expect(s1).to.include({ written: 4, remaining: 6 });
    // A crash in the middle of writing the next line leaves a torn line behind.
    appendFileSync(out, '{"sample_id":"DS/004","dataset":"DS-');
    const second = new MockBackend(3);
    const s2 = await runCorrections({ inputPath: input, outputPath: out, backend: second, prompt: 'rag', progress: 'silent' });
    expect(s2).to.include({ skippedExisting: 4, written: 6, remaining: 0 });
    expect(second.calls.map((m) => m[1].content)).to.deep.equal(input.slice(4).map((r) => r.ocr_text));
    const ids = readOut(out).map((r) => r.sample_id);
    expect(ids).to.deep.equal(input.map((r) => r.sample_id));
    // A third run has nothing to do.
    const third = new MockBackend();
    const s3 = await runCorrections({ inputPath: input, outputPath: out, backend: third, prompt: 'rag', progress: 'silent' });
    expect(s3).to.include({ skippedExisting: 10, written: 0 });
    expect(third.calls).to.have.length(0);
  });

  it('refuses to resume a file made by another model or another condition', async () => {
    await runCorrections({ inputPath: inputs(2), outputPath: out, backend: new MockBackend(), prompt: 'rag', progress: 'silent' });
    const other = Object.assign(new MockBackend(), { model: 'other-model' });
    await runCorrections({ inputPath: inputs(4), outputPath: out, backend: other, prompt: 'rag', progress: 'silent' }).then(
      () => expect.fail('should reject'),
      (e: Error) =>
        expect(e.message).to.equal(
          `${out}:1: existing output was produced by model "mock-model", this run uses "other-model"; use another output path or remove the file to start over`,
        ),
    );
    await runCorrections({
      inputPath: inputs(4),
      outputPath: out,
      backend: new MockBackend(),
      prompt: 'zero_shot',
      progress: 'silent',
    }).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.match(/:1: existing output holds prompt_type "rag", which does not belong to a "zero_shot" arm/),
    );
    expect(readOut(out)).to.have.length(2);
  });

  it('keeps input order with concurrent calls finishing out of order', async () => {
    const backend = new MockBackend(4, async (u) => {
      await new Promise((ok) => setTimeout(ok, Math.floor(Math.random() * 15)));
      return u;
    });
    await runCorrections({ inputPath: inputs(20), outputPath: out, backend, prompt: 'rag', progress: 'silent', checkpointEvery: 3 });
    expect(readOut(out).map((r) => r.sample_id)).to.deep.equal(inputs(20).map((r) => r.sample_id));
  });

  it('records per-line failures with their reason, keeps them on resume, and retries only them with retryFailed', async () => {
    const input = inputs(6);
    const flaky = new MockBackend(1, (u) => {
      if (u === 'نص 1') throw new LlmError('local_error', 'context overflow', null, 1);
      if (u === 'نص 4') throw new LlmError('client_error', 'HTTP 400: bad', 400, 1);
      return u;
    });
    const s1 = await runCorrections({ inputPath: input, outputPath: out, backend: flaky, prompt: 'rag', progress: 'silent' });
    expect(s1).to.include({ written: 6, succeeded: 4, failed: 2 });
    expect(s1.failuresByReason).to.deep.equal({ local_error: 1, client_error: 1 });
    const failed = readOut(out)[1];
    expect(failed).to.include({ sample_id: 'DS/001', corrected_text: '', raw_output: '', prompt_tokens: null, completion_tokens: null });
    expect(failed.error).to.deep.equal({ reason: 'local_error', status: null, message: 'context overflow', attempts: 1 });

    const noRetry = new MockBackend();
    expect(await runCorrections({ inputPath: input, outputPath: out, backend: noRetry, prompt: 'rag', progress: 'silent' })).to.include({
      skippedExisting: 6,
      written: 0,
    });

    const healed = new MockBackend();
    const s3 = await runCorrections({
      inputPath: input,
      outputPath: out,
      backend: healed,
      prompt: 'rag',
      retryFailed: true,
      progress: 'silent',
    });
    expect(s3).to.include({ retriedFailed: 2, written: 2, failed: 0, skippedExisting: 4 });
    expect(healed.calls.map((m) => m[1].content)).to.deep.equal(['نص 1', 'نص 4']);
    const recs = readOut(out);
    expect(recs).to.have.length(6);
    expect(new Set(recs.map((r) => r.sample_id)).size).to.equal(6);
    expect(recs.every((r) => r.error === null)).to.equal(true);
  });

  for (const [reason, status] of [
    ['connection', null],
    ['timeout', null],
    ['rate_limited', 429],
    ['server_error', 503],
    ['invalid_response', 200],
  ] as const) {
    it(`an outage (${reason}) is never recorded: the run stops, keeps what succeeded and throws LlmUnavailableError`, async () => {
      let up = true;
      const backend = new MockBackend(1, (u) => {
        if (u === 'نص 3') up = false; // the server goes away after three lines
        if (!up) throw new LlmError(reason, `${reason} after retries`, status, 5);
        return u;
      });
      const err = await runCorrections({ inputPath: inputs(10), outputPath: out, backend, prompt: 'rag', progress: 'silent' }).then(
        () => null,
        (e: unknown) => e,
      );
      // Safety net: before, every line after the outage became a failed record and the run "succeeded".
      expect(err).to.be.instanceOf(LlmUnavailableError);
      expect((err as LlmUnavailableError).failure).to.include({ reason, attempts: 5 });
      expect((err as LlmUnavailableError).summary).to.include({ written: 3, failed: 0, remaining: 7, aborted: false });
      expect(readOut(out).map((r) => r.error)).to.deep.equal([null, null, null]);
      up = true;
      const s2 = await runCorrections({
        inputPath: inputs(10),
        outputPath: out,
        backend: new MockBackend(),
        prompt: 'rag',
        progress: 'silent',
      });
      expect(s2).to.include({ skippedExisting: 3, written: 7, failed: 0 });
      expect(readOut(out)).to.have.length(10);
    });
  }

  it('gives up after too many consecutive per-line failures (a wrong model name), keeping what it wrote', async () => {
    const dead = new MockBackend(1, () => {
      throw new LlmError('client_error', 'HTTP 404: model not found', 404, 1);
    });
    let err: RunCorrectionsError | undefined;
    try {
      await runCorrections({
        inputPath: inputs(30),
        outputPath: out,
        backend: dead,
        prompt: 'rag',
        maxConsecutiveFailures: 5,
        progress: 'silent',
      });
    } catch (e) {
      err = e as RunCorrectionsError;
    }
    expect(err).to.be.instanceOf(RunCorrectionsError);
    expect(err).not.to.be.instanceOf(LlmUnavailableError);
    expect(err!.message).to.match(/5 consecutive failures \(last: client_error HTTP 404/);
    expect(err!.summary).to.include({ written: 5, failed: 5, remaining: 25 });
    expect(readOut(out)).to.have.length(5);
  });

  it('stops on abort without writing the aborted calls; a rerun completes', async () => {
    const ac = new AbortController();
    const slow = new MockBackend(2, async (u) => {
      if (u === 'نص 3') ac.abort();
      await new Promise((ok) => setTimeout(ok, 5));
      return u;
    });
    const s = await runCorrections({
      inputPath: inputs(10),
      outputPath: out,
      backend: slow,
      prompt: 'rag',
      signal: ac.signal,
      progress: 'silent',
    });
    expect(s.aborted).to.equal(true);
    expect(s.written).to.be.below(10);
    expect(readOut(out).every((r) => r.error === null)).to.equal(true);
    const s2 = await runCorrections({
      inputPath: inputs(10),
      outputPath: out,
      backend: new MockBackend(),
      prompt: 'rag',
      progress: 'silent',
    });
    expect(s2.written + s.written).to.equal(10);
    expect(readOut(out).map((r) => r.sample_id)).to.have.members(inputs(10).map((r) => r.sample_id));
  });

  it('reads inference_input.jsonl, filters datasets, and rejects a bad line with file:line and field', async () => {
    const file = path.join(dir, 'inference_input.jsonl');
    const input = inputs(4);
    writeFileSync(
      file,
      input.map((r) => JSON.stringify(r)).join('\n') +
        '\n' +
        input
          .map((r) => JSON.stringify(r))
          .slice(0, 1)
          .join('') +
        '\n',
    );
    const s = await runCorrections({
      inputPath: file,
      outputPath: out,
      backend: new MockBackend(),
      prompt: 'rag',
      datasets: ['DS-B'],
      progress: 'silent',
    });
    expect(s).to.include({ inputRecords: 2, written: 2 });
    expect(readOut(out).map((r) => r.dataset)).to.deep.equal(['DS-B', 'DS-B']);
    const s2 = await runCorrections({
      inputPath: file,
      outputPath: path.join(dir, 'all.jsonl'),
      backend: new MockBackend(),
      prompt: 'rag',
      progress: 'silent',
    });
    expect(s2).to.include({ inputRecords: 5, duplicateInput: 1, written: 4 });

    writeFileSync(file, JSON.stringify(input[0]) + '\n' + JSON.stringify({ ...input[1], ocr_text: 5 }) + '\n');
    await runCorrections({
      inputPath: file,
      outputPath: path.join(dir, 'x.jsonl'),
      backend: new MockBackend(),
      prompt: 'rag',
      progress: 'silent',
    }).then(
      () => expect.fail('should reject'),
      (e: Error) =>
        expect(e.message).to.match(
          new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: invalid inference input record: ocr_text: `),
        ),
    );
  });

  it('end to end over HTTP: 429 retried, 400 recorded, and the API key never reaches the file', async () => {
    const KEY = 'sk-or-v1-TOPSECRET-abcdef';
    const server = await startFakeServer((r) => {
      const user = r.body.messages?.[1]?.content;
      if (user === 'نص 1' && r.n <= 2) return { status: 429, headers: { 'retry-after-ms': '20' } };
      if (user === 'نص 2') return { status: 400, json: { error: { message: `rejected key ${r.headers.authorization}` } } };
      return { content: `"${user}"` };
    });
    try {
      const backend = new OpenAiCompatibleBackend({
        baseUrl: server.url,
        model: 'remote-model',
        apiKeyEnv: 'K',
        env: { K: KEY },
        concurrency: 2,
        retry: { baseDelayMs: 5, maxDelayMs: 10 },
      });
      const s = await runCorrections({ inputPath: inputs(4), outputPath: out, backend, prompt: 'rag', progress: 'silent' });
      expect(s).to.include({ written: 4, succeeded: 3, failed: 1 });
      expect(s.failuresByReason).to.deep.equal({ client_error: 1 });
      const recs = readOut(out);
      expect(recs[0]).to.include({
        corrected_text: 'نص 0',
        raw_output: '"نص 0"',
        model: 'remote-model',
        prompt_tokens: 11,
        completion_tokens: 7,
      });
      expect(recs[2].error).to.deep.include({ reason: 'client_error', status: 400, attempts: 1 });
      const text = readFileSync(out, 'utf8');
      expect(text).to.include('[REDACTED]');
      expect(text).not.to.include('TOPSECRET');
    } finally {
      await server.close();
    }
  });
});
