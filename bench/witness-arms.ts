/**
 * "When does retrieval help?" on the full OCR_GS set (5 books, 5,092 lines) without an LLM: a corpus without the
 * datasets' sources (`similar`), a witness index holding them (`with_sources_witness`), a placebo, and corrections
 * imported per arm that copy the gold text when the arm's context holds it (the verbatim-gold test of
 * bench/arms-ocrgs.ts, similarity ≥ 0.9) and keep the OCR text otherwise. Then the analysis of all arms and the
 * split of every arm's ΔCER by "gold passage in context" (analysis/study/provenance.ts).
 *
 *   npx tsx bench/witness-arms.ts [--results results/witness-arms] [--iterations 1000] [--witness-works GLOB,...]
 *
 * Corpus and index: configs/demo.yaml's (4,000 OpenITI sentences, e5-small, exact search) with
 * `exclude_dataset_sources: true`; the witness index: the works of --witness-works (default: every work of the
 * slice). A second run reuses the build, the witness index and the exports.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDeps } from '../activities';
import { analyzeProvenance, formatProvenanceTable } from '../analysis/study/provenance';
import { armsTableLines } from '../bin/cli/summary';
import { parseConfig } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { REPO_ROOT } from '../test/helpers/shared-data';
import type { StageInput } from '../workflows/types';
import { copyGoldInContext, importArm, ocrgsDemoConfig } from './ocrgs-study';
import { createStageCalls } from '../test/helpers/stage-calls';

const { values: args } = parseArgs({
  options: {
    results: { type: 'string', default: path.join(REPO_ROOT, 'results', 'witness-arms') },
    iterations: { type: 'string', default: '1000' },
    'witness-works': { type: 'string', default: '*' },
  },
});

const ARMS = ['identity', 'similar', 'with_sources_witness', 'placebo'];

function benchConfig(results: string): Config {
  const demo = ocrgsDemoConfig('witness-arms', results, Number(args.iterations));
  demo.corpus = { ...demo.corpus, exclude: [], exclude_dataset_sources: true };
  demo.study = {
    baseline: 'identity',
    arms: [
      { name: 'identity', prompt: 'zero_shot' },
      { name: 'similar' },
      { name: 'with_sources_witness', retrieval: { mode: 'witness', witness: { works: args['witness-works']!.split(',') } } },
      { name: 'placebo', retrieval: { mode: 'random' } },
    ],
  };
  return parseConfig(demo, 'bench/witness-arms', { env: {} });
}

const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const results = path.resolve(args.results!);
  const config = benchConfig(results);
  const input: StageInput = { run: 'witness-arms', config, options: {}, force: false };
  const acts = createStageCalls(defaultDeps());
  let t0 = performance.now();
  await acts.buildCorpus(input);
  await acts.buildIndex(input);
  console.error(`build (corpus, witness index, dense index): ${seconds(t0)}`);
  t0 = performance.now();
  const plan = await acts.planExport(input);
  for (const shard of plan.datasets.flatMap((d) => d.shards)) await acts.exportShard({ input, shard });
  const merged = await acts.mergeExport({ input, plan });
  console.error(`export: ${merged.records} records × ${merged.exports?.length ?? 1} export(s) in ${seconds(t0)}`);
  // Every arm but the identity copies the gold line when its context holds it.
  for (const arm of ARMS) await importArm(acts, input, results, arm, arm === 'identity' ? (r) => r.ocr_text : copyGoldInContext);
  t0 = performance.now();
  const analysis = await acts.analyzeResults(input);
  console.error(`analysis: ${seconds(t0)} → ${analysis.report}`);
  for (const line of armsTableLines(analysis.arms!)) console.log(line);
  const sources = Object.fromEntries(Object.entries(config.datasets).map(([k, d]) => [k, d.source_pattern]));
  const p = await analyzeProvenance({
    resultsDir: results,
    baseline: 'identity',
    sources,
    bootstrap: { iterations: Number(args.iterations), seed: 42 },
    write: false,
  });
  console.log(`\n${formatProvenanceTable(p)}`);
}

await main();
