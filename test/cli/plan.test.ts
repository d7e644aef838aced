/**
 * `phase5 plan` against the simulated GPU box (test/helpers/sim-llm-server.ts) on real OCR_GS lines: the plan's
 * request count is what the run then sends (a study with a placebo arm, and replicates where the config takes
 * them), and its prompt tokens, counted by the box's own tokenizer through `/tokenize` (vLLM's form and
 * llama.cpp's), are within 2 % of what the box counts while serving — the estimate is not.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { createBackend } from '../../src/llm';
import { estimateCounter, countAll } from '../../src/plan/prompt-tokens';
import { correctionPrompt } from '../../src/llm/correction-calls';
import { optionsFrom, run as runInfer } from '../../src/stages/infer';
import { studyPlan } from '../../src/stages/study-plan';
import { computePlan } from '../../bin/cli/plan';
import { loadOcrGs } from '../helpers/ocrgs-arms';
import { requireSharedData } from '../helpers/shared-data';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { loadSimTokenizer, type SimTokenizer } from '../helpers/sim-tokenizer';
import type { OcrSample } from '../../src/datasets';

const ARMS = [
  { name: 'zero_shot', prompt: 'zero_shot' },
  { name: 'rag', replicates: 2 },
  { name: 'placebo', retrieval: { mode: 'random' } },
];

/** A study config on the box; `replicates` only where the schema has the key (rep31's arms), else plain arms. */
function studyConfig(root: string, box: SimLlmServer, datasets: Record<string, string>): { config: Config; replicates: boolean } {
  const raw = (arms: unknown[]) => ({
    paths: { results_dir: root },
    datasets: Object.fromEntries(Object.entries(datasets).map(([k, p]) => [k, { type: 'jsonl', path: p }])),
    infer: { backend: 'openai', openai: { base_url: box.url, model: 'sim', max_tokens: 64, adaptive_concurrency: false, concurrency: 8 } },
    study: { arms },
  });
  try {
    return { config: parseConfig(raw(ARMS), 'plan-test.yaml', { env: {} }), replicates: true };
  } catch {
    return { config: parseConfig(raw(ARMS.map(({ replicates: _r, ...a }) => a)), 'plan-test.yaml', { env: {} }), replicates: false };
  }
}

/** Every arm's export, as `phase5 export` writes it: rag-style arms get a context (the gold of the next lines). */
function writeExports(config: Config, lines: OcrSample[]): void {
  for (const arm of studyPlan(config, {}).arms) {
    mkdirSync(path.dirname(arm.input), { recursive: true });
    const rows = lines.map((s, i) => ({
      sample_id: s.sample_id,
      dataset: s.dataset,
      ocr_text: s.ocr_text,
      gt_text: s.gt_text,
      retrieval_context:
        arm.prompt === 'rag'
          ? lines
              .slice(i + 1, i + 4)
              .map((x) => x.gt_text)
              .join('\n') || null
          : null,
    }));
    writeFileSync(arm.input, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
}

/** The prompt tokens the box reported for every corrected line of every arm. */
function servedPromptTokens(config: Config): number {
  let n = 0;
  for (const arm of studyPlan(config, {}).arms)
    for (const line of readFileSync(arm.output, 'utf8').split('\n').filter(Boolean))
      n += (JSON.parse(line) as { prompt_tokens: number }).prompt_tokens;
  return n;
}

describe('phase5 plan (simulated box)', function () {
  this.timeout(120_000);
  let lines: OcrSample[];
  let tokenizer: SimTokenizer;
  let root: string;
  let datasets: Record<string, string>;

  before(async function () {
    requireSharedData(this, 'ocr-gs');
    const all = await loadOcrGs(['IbnQutayba.Adab', 'Jahiz.Hayawan']);
    lines = ['OCR_GS-IbnQutayba.Adab', 'OCR_GS-Jahiz.Hayawan'].flatMap((d) => all.filter((s) => s.dataset === d).slice(0, 60));
    tokenizer = loadSimTokenizer();
    root = mkdtempSync(path.join(os.tmpdir(), 'plan-'));
    datasets = {};
    for (const d of new Set(lines.map((s) => s.dataset))) {
      datasets[d] = path.join(root, `${d}.jsonl`);
      const mine = lines.filter((s) => s.dataset === d);
      writeFileSync(
        datasets[d],
        mine.map((s) => JSON.stringify({ sample_id: s.sample_id, ocr_text: s.ocr_text, gt_text: s.gt_text })).join('\n') + '\n',
      );
    }
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  for (const api of ['vllm', 'llama.cpp'] as const) {
    it(`the plan's requests are the run's, its prompt tokens (${api} /tokenize) within 2 % of the box's count`, async () => {
      const box = await startSimLlmServer({ concurrency: 8, tokenizer: { api, tokenizer } });
      const results = path.join(root, api);
      try {
        const { config, replicates } = studyConfig(results, box, datasets);
        writeExports(config, lines);
        const plan = await computePlan(config, {}, { linesPerS: 4 });
        expect(plan.arms.map((a) => [a.arm, a.lines, a.prompt_tokens_source])).to.deep.equal([
          ['zero_shot', 120, 'server'],
          ['rag', 120, 'server'],
          ['placebo', 120, 'server'],
        ]);
        expect(plan.arms.find((a) => a.arm === 'rag')!.replicates).to.equal(replicates ? 2 : 1);
        expect(plan.totals.est_seconds).to.equal(plan.totals.requests / 4);
        expect(plan.arms.every((a) => a.max_completion_tokens === a.requests * 64)).to.equal(true);
        expect(box.served()).to.equal(0); // counting tokens corrects nothing

        await runInfer(optionsFrom(config, {}), {}, (cfg) => createBackend({ ...cfg, env: { OPENAI_API_KEY: 'sim-key' } }));
        expect(box.served()).to.equal(plan.totals.requests);
        const served = servedPromptTokens(config);
        expect(Math.abs(plan.totals.prompt_tokens - served) / served).to.be.below(0.02);
        // The estimate (no tokenizer route) misses the box's count by more than 2 %: the server's count is what makes it exact.
        const prompts = studyPlan(config, {}).arms.flatMap((a) =>
          lines.map((s) => correctionPrompt(a.prompt, { ...s, retrieval_context: null }).messages),
        );
        const estimated = (await countAll(estimateCounter, prompts)).reduce((x, y) => x + y, 0);
        const counted = prompts.reduce((n, m) => n + tokenizer.ids(m.map((x) => x.content).join('')).length, 0);
        expect(Math.abs(estimated - counted) / counted).to.be.above(0.02);
      } finally {
        await box.close();
      }
    });
  }

  it('without a tokenizer route the prompt tokens are an estimate, labelled so', async () => {
    const box = await startSimLlmServer({ concurrency: 8 });
    try {
      const { config } = studyConfig(path.join(root, 'none'), box, datasets);
      writeExports(config, lines);
      const plan = await computePlan(config, {}, { probe: false });
      expect(plan.arms.every((a) => a.prompt_tokens_source === 'estimate')).to.equal(true);
      expect(plan.totals.est_seconds).to.equal(null);
      expect(plan.detail.notes.join('\n')).to.match(/prompt tokens estimated: no tokenizer/);
    } finally {
      await box.close();
    }
  });
});
