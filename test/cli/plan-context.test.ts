/**
 * The served model's context length (vLLM's `max_model_len`, from `/tokenize` and `/v1/models`), checked by
 * `phase5 plan` and by infer before it sends: on the simulated box answering as vLLM, with its context set just
 * below the longest zero-shot prompt of real OCR_GS lines plus max_tokens, the plan names the lines that cannot fit
 * (arm, line, tokens, limit) and infer writes them as failed `context_length` records without sending them.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../src/config/load';
import { createBackend } from '../../src/llm';
import { correctionPrompt } from '../../src/llm/correction-calls';
import { optionsFrom, run as runInfer } from '../../src/stages/infer/infer';
import { studyPlan } from '../../src/stages/study/plan';
import { computePlan } from '../../bin/cli/plan';
import { writeExports, writeStudyDatasets } from '../helpers/plan-study';
import { loadOcrGs } from '../helpers/ocrgs-arms';
import { requireSharedData } from '../helpers/shared-data';
import { startSimLlmServer } from '../helpers/sim-llm-server';
import { chatTemplate, loadSimTokenizer } from '../helpers/sim-tokenizer';

describe('max_model_len: phase5 plan names the lines that cannot fit, infer refuses them unsent', function () {
  this.timeout(120_000);
  let root: string;
  before(function () {
    requireSharedData(this, 'ocr-gs');
    root = mkdtempSync(path.join(os.tmpdir(), 'plan-context-'));
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it('plan: one note naming arm, lines, tokens and the limit; infer: those lines failed context_length, never sent', async () => {
    const { lines, datasets } = writeStudyDatasets(await loadOcrGs(['IbnQutayba.Adab', 'Jahiz.Hayawan']), root, 30);
    const tokenizer = loadSimTokenizer();
    const tokens = lines.map(
      (s) => tokenizer.ids(chatTemplate(correctionPrompt('zero_shot', { ...s, retrieval_context: null }).messages)).length,
    );
    const maxModelLen = Math.max(...tokens) + 64 - 1; // the longest prompt(s) plus max_tokens 64 do not fit
    const over = lines.filter((_, i) => tokens[i] + 64 > maxModelLen).map((s) => s.sample_id);
    const box = await startSimLlmServer({ concurrency: 8, maxModelLen, tokenizer: { api: 'vllm', tokenizer } });
    try {
      const config = parseConfig(
        {
          paths: { results_dir: root },
          datasets: Object.fromEntries(Object.entries(datasets).map(([k, p]) => [k, { type: 'jsonl', path: p }])),
          infer: {
            backend: 'openai',
            max_failed_share: 0.2,
            openai: { base_url: box.url, model: 'sim', max_tokens: 64, adaptive_concurrency: false, concurrency: 8 },
          },
          study: { arms: [{ name: 'zero_shot', prompt: 'zero_shot' }] },
        },
        'plan-context.yaml',
        { env: {} },
      );
      await writeExports(config, lines);
      const plan = await computePlan(config, {}, { linesPerS: 4 });
      const note = plan.detail.notes.find((n) => n.startsWith('arm zero_shot:'));
      expect(note).to.match(
        new RegExp(
          `^arm zero_shot: ${over.length} line\\(s\\) over max_model_len ${maxModelLen} with max_tokens 64 \\(line prompt-tokens: `,
        ),
      );
      expect(note).to.include(`${over[0]} ${maxModelLen - 64 + 1}`);

      await runInfer(optionsFrom(config, {}), {}, (cfg) =>
        createBackend(cfg.type === 'openai' ? { ...cfg, env: { OPENAI_API_KEY: 'k' } } : cfg),
      );
      const records = readFileSync(studyPlan(config, {}).arms[0].output, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { sample_id: string; error: { reason: string; message: string } | null });
      expect(records.filter((r) => r.error).map((r) => [r.sample_id, r.error!.reason])).to.deep.equal(
        over.map((id) => [id, 'context_length']),
      );
      expect(records.find((r) => r.error)!.error!.message).to.match(new RegExp(`exceeds max_model_len ${maxModelLen} of sim`));
      expect(box.served()).to.equal(lines.length - over.length);
      expect(box.refused(), 'the box refused nothing: the over-long prompts never reached it').to.deep.equal([]);
    } finally {
      await box.close();
    }
  });
});
