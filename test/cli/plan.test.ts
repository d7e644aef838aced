/**
 * `phase5 plan` against the simulated GPU box (test/helpers/sim-llm-server.ts) on real OCR_GS lines: the plan's
 * request count is what the run then sends (a study with a placebo arm and an arm of 2 replicates), and its
 * prompt tokens, counted by the box's own tokenizer through `/tokenize` (vLLM's form and llama.cpp's), are
 * within 2 % of what the box counts while serving — the estimate is not.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBackend } from '../../src/llm';
import { estimateCounter, countAll } from '../../src/plan/prompt-tokens';
import { correctionPrompt } from '../../src/llm/correction-calls';
import { optionsFrom, run as runInfer } from '../../src/stages/infer/infer';
import { studyPlan } from '../../src/stages/study/plan';
import { computePlan } from '../../bin/cli/plan';
import { main } from '../../bin/cli/main';
import { servedPromptTokens, studyConfig, writeExports, writeStudyDatasets } from '../helpers/plan-study';
import { loadOcrGs } from '../helpers/ocrgs-arms';
import { requireSharedData } from '../helpers/shared-data';
import { startSimLlmServer } from '../helpers/sim-llm-server';
import { loadSimTokenizer, type SimTokenizer } from '../helpers/sim-tokenizer';
import type { OcrSample } from '../../src/datasets';

describe('phase5 plan (simulated box)', function () {
  this.timeout(120_000);
  let lines: OcrSample[];
  let tokenizer: SimTokenizer;
  let root: string;
  let datasets: Record<string, string>;

  before(async function () {
    requireSharedData(this, 'ocr-gs');
    root = mkdtempSync(path.join(os.tmpdir(), 'plan-'));
    ({ lines, datasets } = writeStudyDatasets(await loadOcrGs(['IbnQutayba.Adab', 'Jahiz.Hayawan']), root, 60));
    tokenizer = loadSimTokenizer();
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  for (const api of ['vllm', 'llama.cpp'] as const) {
    it(`the plan's requests are the run's, its prompt tokens (${api} /tokenize) within 2 % of the box's count`, async () => {
      const box = await startSimLlmServer({ concurrency: 8, tokenizer: { api, tokenizer } });
      const results = path.join(root, api);
      try {
        const { config } = studyConfig(results, box, datasets);
        await writeExports(config, lines);
        const plan = await computePlan(config, {}, { linesPerS: 4 });
        expect(plan.arms.map((a) => [a.arm, a.lines, a.prompt_tokens_source])).to.deep.equal([
          ['zero_shot', 120, 'server'],
          ['rag', 120, 'server'],
          ['placebo', 120, 'server'],
        ]);
        expect(plan.arms.find((a) => a.arm === 'rag')!.replicates).to.equal(2);
        expect(plan.totals.requests).to.equal(4 * 120); // zero_shot + 2 × rag + placebo
        expect(plan.totals.est_seconds).to.equal(plan.totals.requests / 4);
        expect(plan.arms.every((a) => a.max_completion_tokens === a.requests * 64)).to.equal(true);
        expect(box.served()).to.equal(0); // counting tokens corrects nothing

        await runInfer(optionsFrom(config, {}), {}, (cfg) =>
          createBackend(cfg.type === 'openai' ? { ...cfg, env: { OPENAI_API_KEY: 'sim-key' } } : cfg),
        );
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

  it('`phase5 plan --json` prints exactly {arms, totals, contrasts}; --sample plans the pilot; --freeze prints the sha256', async () => {
    const box = await startSimLlmServer({ concurrency: 8, tokenizer: { api: 'vllm', tokenizer } });
    const results = path.join(root, 'cli');
    try {
      const { config } = studyConfig(results, box, datasets);
      await writeExports(config, lines);
      const file = path.join(root, 'cli-config.json');
      writeFileSync(file, JSON.stringify({ ...config, temporal: undefined }));
      const printed: string[] = [];
      const errors: string[] = [];
      const [log, err] = [console.log, console.error];
      console.log = (x: string) => printed.push(x);
      console.error = (x: string) => errors.push(x);
      try {
        const code = await main([
          'node',
          'phase5',
          '-c',
          file,
          'plan',
          '--json',
          '--lines-per-s',
          '2',
          '--sample',
          '30',
          '--seed',
          '7',
          '--freeze',
        ]);
        expect(code, errors.join('\n')).to.equal(0);
      } finally {
        [console.log, console.error] = [log, err];
      }
      const doc = JSON.parse(printed.join('\n')) as Record<string, Record<string, unknown>[] & Record<string, unknown>>;
      expect(Object.keys(doc)).to.deep.equal(['arms', 'totals', 'contrasts']);
      expect(Object.keys(doc.arms[0])).to.deep.equal([
        'arm',
        'lines',
        'replicates',
        'requests',
        'prompt_tokens',
        'prompt_tokens_source',
        'max_completion_tokens',
      ]);
      expect(Object.keys(doc.totals)).to.deep.equal(['requests', 'prompt_tokens', 'est_seconds', 'cost']);
      expect(Object.keys(doc.contrasts[0])).to.deep.equal(['arm', 'vs', 'mde', 'lines_needed']);
      expect(doc.arms.map((a) => a.lines)).to.deep.equal([60, 60, 60]); // 30 per dataset
      expect(errors.join('\n')).to.match(/plan\.lock\.json [0-9a-f]{64} /);
    } finally {
      await box.close();
    }
  });

  it('without --lines-per-s a short probe at rising concurrency gives the rate; it writes no correction', async () => {
    const box = await startSimLlmServer({ knee: 4, baseMs: 40 });
    const before = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sim-key';
    try {
      const { config } = studyConfig(path.join(root, 'probe'), box, datasets);
      await writeExports(config, lines);
      const plan = await computePlan(config, {});
      const t = plan.detail.throughput as { lines_per_s: number; levels: { concurrency: number; requests: number; lines_per_s: number }[] };
      expect(t.levels.map((l) => l.concurrency).slice(0, 2)).to.deep.equal([1, 4]);
      expect(t.levels.every((l) => l.requests === 2 * l.concurrency && l.lines_per_s > 0)).to.equal(true);
      expect(box.served()).to.equal(t.levels.reduce((n, l) => n + l.requests, 0));
      expect(box.peakConcurrency()).to.equal(t.levels.at(-1)!.concurrency); // each level keeps c in flight, no more
      expect(plan.totals.est_seconds).to.be.closeTo(plan.totals.requests / t.lines_per_s, 1e-9);
      expect(existsSync(studyPlan(config, {}).arms[0].output)).to.equal(false);
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = before;
      await box.close();
    }
  });

  it('without a tokenizer route the prompt tokens are an estimate, labelled so', async () => {
    const box = await startSimLlmServer({ concurrency: 8 });
    try {
      const { config } = studyConfig(path.join(root, 'none'), box, datasets);
      await writeExports(config, lines);
      const plan = await computePlan(config, {}, { probe: false });
      expect(plan.arms.every((a) => a.prompt_tokens_source === 'estimate')).to.equal(true);
      expect(plan.totals.est_seconds).to.equal(null);
      expect(plan.detail.notes.join('\n')).to.match(/prompt tokens estimated: no tokenizer/);
    } finally {
      await box.close();
    }
  });
});
