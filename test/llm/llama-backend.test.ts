import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildRag, buildZeroShot } from '../../src/prompts/builder';
import { resolveDecoding } from '../../src/llm/decoding';
import { LlamaCppBackend } from '../../src/llm/llama-backend';
import { runCorrections } from '../../src/llm/runner';
import type { CorrectionRecord } from '../../src/llm/records';
import { REPO_ROOT } from '../helpers/shared-data';

const MODEL = process.env.PHASE5_TEST_GGUF ?? path.join(REPO_ROOT, 'models', 'smollm2-135m-instruct', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const MAX_TOKENS = 12;

describe('llm/llama-backend (local GGUF, real generation)', function () {
  this.timeout(120_000);
  let backend: LlamaCppBackend | null = null;

  before(async function () {
    if (!existsSync(MODEL)) {
      console.log(`    (skipped: GGUF model not found at ${MODEL}; run npm run setup)`);
      this.skip();
    }
    // One thread: on a busy 2-core machine, llama.cpp threads spin-waiting on each other make 2 threads ~5x slower.
    backend = await LlamaCppBackend.create({ modelPath: MODEL, threads: 1, contextSize: 1024, maxTokens: MAX_TOKENS });
  });
  after(async () => backend?.close());

  it('generates text with real token counts, greedily (same prompt → same text)', async () => {
    const prompt = buildZeroShot('بلعو واحلة امتفرغن تلل التمة عليما');
    const a = await backend!.complete(prompt.messages);
    expect(a.text.trim().length).to.be.greaterThan(0);
    expect(a.completionTokens).to.be.within(1, MAX_TOKENS);
    // The system prompt alone is dozens of tokens for this tokenizer: the count covers the whole template.
    expect(a.promptTokens).to.be.greaterThan(20);
    expect(a.latencyMs).to.be.greaterThan(0);
    expect(a.firstTokenMs).to.be.within(0, a.latencyMs);
    expect(a.attempts).to.equal(1);
    const b = await backend!.complete(prompt.messages);
    expect(b.text).to.equal(a.text);
    expect(backend!.model).to.equal('SmolLM2-135M-Instruct.Q4_1');
  });

  it('a longer (RAG) prompt counts more prompt tokens; per-call maxTokens is honoured', async () => {
    const ocr = 'بلعو واحلة امتفرغن تلل التمة عليما';
    const zs = backend!.countPromptTokens(buildZeroShot(ocr).messages);
    const rag = await backend!.complete(buildRag(ocr, 'نصوص مرجعية صحيحة:\n1. قال أبو عثمان في كتاب الحيوان كلاما كثيرا').messages, {
      maxTokens: 3,
    });
    expect(rag.promptTokens!).to.be.greaterThan(zs + 10);
    expect(rag.completionTokens).to.be.within(1, 3);
  });

  it('runs the correction runner on two OCR samples with the model loaded once', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'llama-run-'));
    try {
      const out = path.join(dir, 'corrections.jsonl');
      const input = ['بلعو واحلة امتفرغن', 'لو كانت هذه الكتب كتب دين'].map((t, i) => ({
        sample_id: `T/${i}`,
        dataset: 'T',
        ocr_text: t,
        gt_text: t,
        retrieval_context: i === 1 ? '' : 'نصوص مرجعية صحيحة:\n1. وكذلك إن تكلم بأكثر من',
      }));
      const s = await runCorrections({
        inputPath: input,
        outputPath: out,
        backend: backend!,
        prompt: 'rag',
        maxTokens: 4,
        progress: 'silent',
      });
      expect(s).to.include({ written: 2, succeeded: 2, failed: 0 });
      expect(s.completionTokens).to.be.within(2, 2 * 4);
      const recs: CorrectionRecord[] = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(recs.map((r) => r.prompt_type)).to.deep.equal(['rag', 'zero_shot_fallback']);
      for (const r of recs) {
        expect(r.model).to.equal('SmolLM2-135M-Instruct.Q4_1');
        expect(r.raw_output.length).to.be.greaterThan(0);
        expect(r.prompt_tokens).to.be.greaterThan(20);
        expect(r.completion_tokens).to.be.greaterThan(0);
        expect(r.error).to.equal(null);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('honours decoding: max_tokens caps the answer, a seed repeats a sampled answer, a stop sequence ends it', async () => {
    const messages = buildZeroShot('بلعو واحلة امتفرغن تلل التمة عليما').messages;
    const greedy = await backend!.complete(messages);
    const sampling = resolveDecoding(
      { temperature: 1.5, top_p: 0.95, seed: 1234, max_tokens: MAX_TOKENS },
      { temperature: 0, maxTokens: 256 },
    );
    const sampler = await LlamaCppBackend.create({ modelPath: MODEL, threads: 1, contextSize: 1024, decoding: sampling });
    try {
      const a = await sampler.complete(messages);
      const b = await sampler.complete(messages);
      expect(b.text).to.equal(a.text);
      expect(a.text, 'sampled at temperature 1.5, not greedy').to.not.equal(greedy.text);
      expect(a.completionTokens).to.be.within(1, MAX_TOKENS);
      const short = await sampler.complete(messages, { maxTokens: 2 });
      expect(short.completionTokens).to.be.within(1, 2);
    } finally {
      await sampler.close();
    }
    // A stop sequence taken from inside the greedy answer cuts it there.
    const text = greedy.text.trim();
    const stop = text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 2);
    const stopping = await LlamaCppBackend.create({
      modelPath: MODEL,
      threads: 1,
      contextSize: 1024,
      decoding: resolveDecoding({ stop: [stop], max_tokens: MAX_TOKENS }, { temperature: 0, maxTokens: 256 }),
    });
    try {
      const cut = await stopping.complete(messages);
      expect(cut.text.length).to.be.lessThan(greedy.text.length);
      expect(greedy.text.startsWith(cut.text.trimEnd()) || greedy.text.trim().startsWith(cut.text.trim())).to.equal(true);
    } finally {
      await stopping.close();
    }
  });

  it('fails clearly for a missing model file', async () => {
    await LlamaCppBackend.create({ modelPath: '/nonexistent/model.gguf' }).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.match(/model file not found: \/nonexistent\/model\.gguf/),
    );
  });
});
