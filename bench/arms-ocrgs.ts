/**
 * The study-arms table on the full OCR_GS set (5 books, 5,092 lines) without an LLM: a real build and a real
 * study export (one export per distinct retrieval), then corrections imported per arm with
 * `phase5 infer --import`'s code path, then the analysis of all arms together (study/arms.json + report).
 *
 *   npx tsx bench/arms-ocrgs.ts [--results results/ocrgs-arms] [--iterations 1000] [--json]
 *
 * Corpus and index: configs/demo.yaml's (4,000 OpenITI sentences, e5-small, exact search) with all five OCR_GS
 * books as datasets. The imports (no model; see IMPORTS):
 *  - identity (the baseline, zero-shot prompt): the OCR text — CER = the raw OCR's;
 *  - gold3 (dense k = 3): the gold text on every third line (export order), the OCR text otherwise;
 *  - gold3_guarded: the same file into an arm with the over-correction guard on, so raw vs guarded CER shows
 *    how often the guard throws away a perfect correction;
 *  - copy_k1 / copy_k3 / copy_hybrid / copy_placebo / copy_oracle †: a perfect copier — the gold text when the
 *    arm's retrieved context holds it (the verbatim-gold test, similarity ≥ 0.9), the OCR text otherwise: what
 *    the context of each retrieval could give at best.
 * A second run reuses the build and the exports (same settings) and redoes imports and analysis.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDeps } from '../activities';
import { armsTableLines } from '../bin/cli/summary';
import { parseConfig } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { REPO_ROOT } from '../test/helpers/shared-data';
import type { StageInput } from '../workflows/types';
import { copyGoldInContext, importArm, ocrgsDemoConfig, type ImportPolicy } from './ocrgs-study';
import { createStageCalls, type StageCalls } from '../test/helpers/stage-calls';

const { values: args } = parseArgs({
  options: {
    results: { type: 'string', default: path.join(REPO_ROOT, 'results', 'ocrgs-arms') },
    iterations: { type: 'string', default: '1000' },
    json: { type: 'boolean', default: false },
  },
});

/** Arm → the corrections imported into it. */
const IMPORTS: Record<string, ImportPolicy> = {
  identity: (r) => r.ocr_text,
  gold3: (r, i) => (i % 3 === 0 ? r.gt_text : r.ocr_text),
  gold3_guarded: (r, i) => (i % 3 === 0 ? r.gt_text : r.ocr_text),
  copy_k1: copyGoldInContext,
  copy_k3: copyGoldInContext,
  copy_hybrid: copyGoldInContext,
  copy_placebo: copyGoldInContext,
  copy_oracle: copyGoldInContext,
};

function benchConfig(results: string): Config {
  const demo = ocrgsDemoConfig('ocrgs-arms', results, Number(args.iterations));
  demo.study = {
    baseline: 'identity',
    arms: [
      { name: 'identity', prompt: 'zero_shot' },
      { name: 'gold3' },
      { name: 'gold3_guarded', guard: { enabled: true } },
      { name: 'copy_k1', retrieval: { top_k: 1 } },
      { name: 'copy_k3' },
      { name: 'copy_hybrid', retrieval: { hybrid: { enabled: true, fusion: 'weighted', dense_weight: 0.5 } } },
      { name: 'copy_placebo', retrieval: { mode: 'random' } },
      { name: 'copy_oracle', retrieval: { mode: 'gold_query' } },
    ],
  };
  return parseConfig(demo, 'bench/arms-ocrgs', { env: {} });
}

const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/** Build and the study export through the activities (as a worker runs them), one shard after another. */
async function buildAndExport(acts: StageCalls, input: StageInput): Promise<void> {
  let t0 = performance.now();
  await acts.buildCorpus(input);
  await acts.buildIndex(input);
  console.error(`build: ${seconds(t0)}`);
  t0 = performance.now();
  const plan = await acts.planExport(input);
  for (const shard of plan.datasets.flatMap((d) => d.shards)) await acts.exportShard({ input, shard });
  const merged = await acts.mergeExport({ input, plan });
  console.error(`export: ${merged.records} records × ${merged.exports?.length ?? 1} export(s) in ${seconds(t0)}`);
}

/** Each arm's import file from its own inference_input.jsonl, imported into the arm. */
async function importArms(acts: StageCalls, input: StageInput, results: string): Promise<void> {
  for (const [arm, policy] of Object.entries(IMPORTS)) {
    const r = await importArm(acts, input, results, arm, policy);
    console.error(`import ${arm}: ${r.imported} lines${r.guard ? ` (guard: ${JSON.stringify(r.guard)})` : ''}`);
  }
}

async function main(): Promise<void> {
  const results = path.resolve(args.results!);
  const config = benchConfig(results);
  const input: StageInput = { run: 'ocrgs-arms', config, options: {}, force: false };
  const acts = createStageCalls(defaultDeps());
  await buildAndExport(acts, input);
  await importArms(acts, input, results);
  const t0 = performance.now();
  const analysis = await acts.analyzeResults(input);
  console.error(`analysis: ${seconds(t0)} → ${analysis.report}`);
  if (args.json) console.log(readFileSync(path.join(results, 'study', 'arms.json'), 'utf8'));
  else for (const line of armsTableLines(analysis.arms!)) console.log(line);
}

await main();
