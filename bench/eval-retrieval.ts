/**
 * Retrieval quality on the real golden set (OCR_GS lines located in their OpenITI sources): recall@1/3/10,
 * MRR and precision@k for dense, lexical, hybrid, + rerank, + MMR and two embedding models.
 *
 *   npx tsx bench/eval-retrieval.ts [--out results/eval-retrieval] [--models e5-small,minilm-l6]
 *        [--lines-per-book N] [--distractors 1500] [--same-book 300] [--window 2] [--min-quality 0.85]
 *        [--fetch-k 50] [--max-queries N] [--openiti DIR] [--ocr-gs DIR]
 *
 * Writes <out>/retrieval_eval.json (+ .vl.json chart, golden.jsonl, per-line ranks) and prints the table.
 * The first run embeds the evaluation corpus (~3.5k sentences) and the OCR lines once per model (a few
 * minutes on 2 cores); later runs reuse <out>/cache. Numbers are printed, never asserted.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultEvalConfigs, defaultEvalModels, describeEvalSummary, evalRetrieval } from '../src/eval/eval-retrieval';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, fallback?: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const num = (name: string) => (arg(name) === undefined ? undefined : Number(arg(name)));
const SHARED = process.env.SHARED_DATA ?? path.resolve(REPO, '..', 'shared', 'data');

const models = defaultEvalModels(REPO).filter((m) => (arg('--models', 'e5-small,minilm-l6') as string).split(',').includes(m.name));
if (models.length === 0) throw new Error('--models: choose from e5-small, minilm-l6');
const t0 = Date.now();
const summary = await evalRetrieval({
  openitiRoot: arg('--openiti', path.join(SHARED, 'openiti'))!,
  ocrGsRoot: arg('--ocr-gs', path.join(SHARED, 'ocr-gs'))!,
  outDir: path.resolve(arg('--out', path.join(REPO, 'results', 'eval-retrieval'))!),
  models,
  configs: defaultEvalConfigs(models),
  fetchK: num('--fetch-k'),
  maxQueries: num('--max-queries'),
  golden: {
    linesPerBook: num('--lines-per-book') ?? null,
    distractors: num('--distractors'),
    sameBookSample: num('--same-book'),
    window: num('--window'),
    minQuality: num('--min-quality'),
  },
});
console.log(`\n${describeEvalSummary(summary)}`);
console.log(`total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
