/**
 * "When does retrieval help?" on the full OCR_GS set (5 books, 5,092 lines) without an LLM: a corpus without the
 * datasets' sources (`similar`), a witness index holding them (`with_sources_witness`), a placebo, and corrections
 * imported per arm that copy the gold text when the arm's context holds it (the verbatim-gold test of
 * bench/arms-ocrgs.ts, similarity ≥ 0.9) and keep the OCR text otherwise. Then the analysis of all arms and the
 * split of every arm's ΔCER by "gold passage in context" (analysis/provenance.ts).
 *
 *   npx tsx bench/witness-arms.ts [--results results/witness-arms] [--iterations 1000] [--witness-works GLOB,...]
 *
 * Corpus and index: configs/demo.yaml's (4,000 OpenITI sentences, e5-small, exact search) with
 * `exclude_dataset_sources: true`; the witness index: the works of --witness-works (default: every work of the
 * slice). A second run reuses the build, the witness index and the exports.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import YAML from 'yaml';
import { createActivities, defaultDeps } from '../activities';
import { analyzeProvenance, formatProvenanceTable } from '../analysis/provenance';
import { armsTableLines } from '../bin/cli/summary';
import { parseConfig } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { isVerbatimGold } from '../src/retrieval/verbatim';
import { OCR_GS_ROOT, REPO_ROOT } from '../test/helpers/shared-data';
import type { StageInput } from '../workflows/types';

const { values: args } = parseArgs({
  options: {
    results: { type: 'string', default: path.join(REPO_ROOT, 'results', 'witness-arms') },
    iterations: { type: 'string', default: '1000' },
    'witness-works': { type: 'string', default: '*' },
  },
});

const BOOKS = ['IbnAthir.Kamil', 'IbnFaqihHamadhani.Buldan', 'IbnQutayba.Adab', 'Jahiz.Hayawan', 'Yacqubi.Tarikh'];
const SOURCES: Record<string, string> = {
  'IbnQutayba.Adab': '0276IbnQutaybaDinawari.AdabKatib*',
  'Yacqubi.Tarikh': '0292Yacqubi.Tarikh*',
  'Jahiz.Hayawan': '0255Jahiz.Hayawan*',
};
const ARMS = ['identity', 'similar', 'with_sources_witness', 'placebo'];

type Rec = { sample_id: string; dataset: string; ocr_text: string; gt_text: string; retrieval_context: string };

function benchConfig(results: string): Config {
  const demo = YAML.parse(readFileSync(path.join(REPO_ROOT, 'configs', 'demo.yaml'), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the demo config as loose YAML, edited by key
  demo.run_name = 'witness-arms';
  demo.paths = { results_dir: results };
  demo.data = { openiti_root: path.join(path.dirname(OCR_GS_ROOT), 'openiti') };
  demo.phase5.corpus = { ...demo.phase5.corpus, exclude: [], exclude_dataset_sources: true };
  demo.datasets = Object.fromEntries(
    BOOKS.map((b) => [
      `OCR_GS-${b}`,
      { type: 'paired_dir', path: path.join(OCR_GS_ROOT, `book_${b}`), ...(SOURCES[b] ? { source_pattern: SOURCES[b] } : {}) },
    ]),
  );
  demo.analysis = { bootstrap_iterations: Number(args.iterations) };
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
  const acts = createActivities(defaultDeps());
  let t0 = performance.now();
  await acts.buildCorpus(input);
  await acts.buildIndex(input);
  console.error(`build (corpus, witness index, dense index): ${seconds(t0)}`);
  t0 = performance.now();
  const plan = await acts.planExport(input);
  for (const shard of plan.datasets.flatMap((d) => d.shards)) await acts.exportShard({ input, shard });
  const merged = await acts.mergeExport({ input, plan });
  console.error(`export: ${merged.records} records × ${merged.exports?.length ?? 1} export(s) in ${seconds(t0)}`);
  for (const arm of ARMS) {
    const recs = readFileSync(path.join(results, 'arms', arm, 'inference_input.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Rec);
    const prompt = arm === 'identity' ? 'zero_shot' : 'rag';
    const lines = recs.map((r) => {
      const text =
        arm !== 'identity' && r.retrieval_context !== '' && isVerbatimGold(r.gt_text, r.retrieval_context) ? r.gt_text : r.ocr_text;
      return JSON.stringify({
        sample_id: r.sample_id,
        dataset: r.dataset,
        prompt_type: prompt,
        prompt_version: 'bench',
        model: 'bench/none',
        ocr_text: r.ocr_text,
        gt_text: r.gt_text,
        corrected_text: text,
        raw_output: text,
        error: null,
      });
    });
    const file = path.join(results, `import-${arm}.jsonl`);
    writeFileSync(file, lines.join('\n') + '\n');
    await acts.importCorrections({ ...input, options: { importFile: file, arm } });
  }
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
