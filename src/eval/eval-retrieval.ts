/**
 * Retrieval evaluation on the real golden set (see golden.ts): recall@k, MRR and precision@k of
 * retrieving an OCR line's true source sentence from its OCR text, for several retriever configurations
 * (dense, lexical, hybrid, + rerank, + MMR) and embedding models, written as a table (JSON) and a
 * Vega-Lite chart.
 *
 *   const summary = await evalRetrieval({ openitiRoot, ocrGsRoot, outDir });
 *
 * Cost on 2 cores: the corpus (~3.5k sentences) is embedded once per model and kept as a normal index in
 * `<cacheDir>/<model>/` (its manifest holds the model and corpus sha256, so a changed corpus or model
 * rebuilds it); the OCR lines' dense candidates and query vectors are cached beside it, keyed by the
 * index manifest and the queries, so re-running with other pipeline options does not embed again.
 * Every configuration runs through the real `createRetrievalPipeline`; only the base retriever's dense
 * search is served from that cache (the same lists RAGRetriever returned).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { childLogger } from '../util/log';
import { defaultEvalConfigs, defaultEvalModels } from './eval-defaults';
import { writeEvalOutputs } from './eval-outputs';
import { evalModel, startRun } from './eval-run';
import type { EvalRetrievalOptions, EvalRetrievalSummary } from './eval-types';
import { buildGoldenSet } from './golden';

export { defaultEvalConfigs, defaultEvalModels } from './eval-defaults';
export { describeEvalSummary, EVAL_CHART_TEMPLATE, evalChart, formatEvalTable } from './eval-outputs';
export type { ConfigResult, EvalConfig, EvalModelSpec, EvalRetrievalOptions, EvalRetrievalSummary } from './eval-types';

const log = childLogger('eval');

export async function evalRetrieval(opts: EvalRetrievalOptions): Promise<EvalRetrievalSummary> {
  const t0 = Date.now();
  const outDir = path.resolve(opts.outDir);
  const cacheDir = path.resolve(opts.cacheDir ?? path.join(outDir, 'cache'));
  mkdirSync(cacheDir, { recursive: true });
  const ks = opts.ks ?? [1, 3, 10];
  const models = opts.models ?? defaultEvalModels();
  const configs = opts.configs ?? defaultEvalConfigs(models);
  for (const c of configs)
    if (!models.some((m) => m.name === c.model))
      throw new Error(`eval config "${c.name}" names model "${c.model}", which is not among ${models.map((m) => m.name).join(', ')}`);

  // 1. Golden set and its corpus.
  const golden = await buildGoldenSet({
    ...opts.golden,
    openitiRoot: opts.openitiRoot,
    ocrGsRoot: opts.ocrGsRoot,
    cacheDir,
    onProgress: opts.onProgress,
  });
  const run = startRun(opts, { ks, configs, cacheDir }, golden);

  // 2. Every configuration, model by model (each model's index and dense cache built once).
  for (const m of models.filter((x) => configs.some((c) => c.model === x.name))) await evalModel(m, run);

  // 3. Outputs.
  const summary = writeEvalOutputs(outDir, golden, run);
  log.info({ seconds: (Date.now() - t0) / 1000, best: summary.best }, 'eval: done');
  return summary;
}
