/** One evaluation run: the queries, then per model its index and dense cache, then each configuration through the real pipeline. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { indexFiles } from '../index/manifest';
import { RAGRetriever } from '../index/retriever';
import { writeJsonlAtomic } from '../io/jsonl';
import { effectiveFetchK, resolvePipelineOptions, type RetrievalPipelineInput, type RetrievalPipelineOptions } from '../retrieval/config';
import { LexicalIndex } from '../retrieval/lexical-index';
import { createRetrievalPipeline, type BaseRetriever, type PipelineDeps, type RetrievalPipeline } from '../retrieval/pipeline';
import { corpusStoreFrom, type CorpusStore } from '../retrieval/store';
import { MatrixFileVectors } from '../retrieval/vectors';
import { childLogger } from '../util/log';
import { cachedBase, cachedQueryEmbedder, denseCandidates } from './dense-cache';
import type { ConfigResult, EvalConfig, EvalModelSpec, EvalRetrievalOptions, EvalRetrievalSummary } from './eval-types';
import type { GoldenLine, GoldenSet } from './golden';
import { firstRelevantRank, rankingMetrics, type RankingMetrics } from './metrics';

const log = childLogger('eval');

/** Non-default keys of a pipeline config, for the table. */
function changedOptions(input: RetrievalPipelineInput): RetrievalPipelineInput {
  const defaults = resolvePipelineOptions({}) as unknown as Record<string, unknown>;
  const resolved = resolvePipelineOptions(input) as unknown as Record<string, unknown>;
  const diff = (a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> | undefined => {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(b)) {
      const x = a[k];
      const y = b[k];
      if (y && typeof y === 'object') {
        const d = diff(x as Record<string, unknown>, y as Record<string, unknown>);
        if (d) out[k] = d;
      } else if (x !== y) out[k] = y;
    }
    return Object.keys(out).length ? out : undefined;
  };
  return (diff(defaults, resolved) ?? {}) as RetrievalPipelineInput;
}

type PerLineRow = { sample_id: string; dataset: string; config: string; model: string; first_relevant_rank: number | null; top: number[] };

/** Everything the per-model and per-configuration steps share, and what they collect. */
export interface EvalRun {
  opts: EvalRetrievalOptions;
  ks: number[];
  /** The largest cut-off: how many hits each query asks for. */
  K: number;
  fetchK: number;
  configs: EvalConfig[];
  cacheDir: string;
  corpusPath: string;
  evaluable: GoldenLine[];
  queries: string[];
  store: CorpusStore;
  /** One lexical index per set of BM25 options, shared by the configurations that use it. */
  lexicalIndexes: Map<string, LexicalIndex>;
  /** Dense candidates to cache per query: enough for every configuration. */
  maxFetch: number;
  results: ConfigResult[];
  modelInfo: EvalRetrievalSummary['models'];
  perLine: PerLineRow[];
  configsDone: number;
}

/** Writes the golden corpus and picks the queries: the evaluable lines (the first maxQueries). */
export function startRun(
  opts: EvalRetrievalOptions,
  s: { ks: number[]; configs: EvalConfig[]; cacheDir: string },
  golden: GoldenSet,
): EvalRun {
  const { ks, configs, cacheDir } = s;
  const K = Math.max(...ks);
  const fetchK = opts.fetchK ?? 50;
  const corpusPath = path.join(cacheDir, 'corpus.jsonl');
  writeJsonlAtomic(corpusPath, golden.corpus);
  let evaluable = golden.lines.filter((l) => l.status === 'evaluable');
  if (opts.maxQueries !== undefined) evaluable = evaluable.slice(0, opts.maxQueries);
  if (evaluable.length === 0) throw new Error('eval: no evaluable lines (check the OCR_GS and OpenITI paths)');
  const queries = evaluable.map((l) => l.ocr_text);
  const store = corpusStoreFrom(golden.corpus);
  const maxFetch = Math.max(
    K,
    ...configs.map((c) => effectiveFetchK(resolvePipelineOptions({ ...c.pipeline, fetch_k: c.pipeline.fetch_k ?? fetchK }), K)),
  );
  return {
    opts,
    ks,
    K,
    fetchK,
    configs,
    cacheDir,
    corpusPath,
    evaluable,
    queries,
    store,
    lexicalIndexes: new Map(),
    maxFetch,
    results: [],
    modelInfo: [],
    perLine: [],
    configsDone: 0,
  };
}

/** One model: its index over the golden corpus (reused when unchanged), then each of its configurations. */
export async function evalModel(m: EvalModelSpec, run: EvalRun): Promise<void> {
  const dir = path.join(run.cacheDir, m.name);
  mkdirSync(dir, { recursive: true });
  const indexPath = path.join(dir, 'index.usearch');
  const retriever = await RAGRetriever.open(
    {
      indexPath,
      corpusPath: run.corpusPath,
      embedding: { modelDir: m.modelDir, maxLength: m.maxLength ?? 128, batchSize: m.batchSize, threads: m.threads },
      index: { type: 'exact' },
    },
    { loadIndex: false },
  );
  if (!retriever.model) throw new Error(`eval: model ${m.name} unavailable: ${retriever.disabledReason}`);
  try {
    const tb = Date.now();
    const manifest = await retriever.buildIndex(run.corpusPath, indexPath, { showProgress: run.opts.progressMode !== 'silent' });
    const builtNow = Date.parse(manifest.created_at) >= tb;
    run.modelInfo.push({
      name: m.name,
      model_dir: m.modelDir,
      index: indexPath,
      corpus_sha256: manifest.corpus.sha256,
      embedded_seconds: builtNow ? (Date.now() - tb) / 1000 : null,
    });
    const cache = await denseCandidates(retriever, run.queries, Math.min(run.maxFetch, run.store.texts.length), dir);
    const base = cachedBase(run.store, run.queries, cache);
    const vectors = new MatrixFileVectors(indexFiles(indexPath).index, manifest.model.dims, manifest.index.count);
    const deps: PipelineDeps = { store: run.store, vectors, embedQueries: cachedQueryEmbedder(run.queries, cache) };
    try {
      for (const c of run.configs.filter((x) => x.model === m.name)) await evalConfig(c, base, deps, run);
    } finally {
      vectors.close();
    }
  } finally {
    await retriever.close();
  }
}

/** The lexical index a hybrid configuration needs, built on first use and shared; undefined without hybrid. */
function lexicalIndexFor(o: RetrievalPipelineOptions, run: EvalRun): LexicalIndex | undefined {
  if (!o.hybrid.enabled) return undefined;
  const lk = `${o.hybrid.ngram}:${o.hybrid.k1}:${o.hybrid.b}:${o.hybrid.max_df}`;
  if (!run.lexicalIndexes.has(lk))
    run.lexicalIndexes.set(
      lk,
      LexicalIndex.build(run.store.texts, { ngram: o.hybrid.ngram, k1: o.hybrid.k1, b: o.hybrid.b, maxDf: o.hybrid.max_df }),
    );
  return run.lexicalIndexes.get(lk);
}

/** One configuration through the real pipeline over all queries; records its metrics and per-line ranks. */
async function evalConfig(c: EvalConfig, base: BaseRetriever, deps: PipelineDeps, run: EvalRun): Promise<void> {
  const input = { ...c.pipeline, fetch_k: c.pipeline.fetch_k ?? run.fetchK };
  const o = resolvePipelineOptions(input);
  const lexicalIndex = lexicalIndexFor(o, run);
  const pipeline = await createRetrievalPipeline(base, input, { ...deps, lexicalIndex });
  const ts = Date.now();
  const ranked = await rankAll(pipeline, run.queries, run.K);
  const seconds = (Date.now() - ts) / 1000;
  const notes = pipelineNotes(pipeline);
  await pipeline.close();
  const { evaluable, ks, results } = run;
  const rq = evaluable.map((l, i) => ({ relevant: l.relevant, ranked: ranked[i] }));
  const perBook: Record<string, RankingMetrics> = {};
  for (const book of [...new Set(evaluable.map((l) => l.dataset))])
    perBook[book] = rankingMetrics(
      rq.filter((_, i) => evaluable[i].dataset === book),
      ks,
    );
  results.push({
    config: c.name,
    model: c.model,
    options: changedOptions(input),
    ...rankingMetrics(rq, ks),
    per_book: perBook,
    seconds,
    notes,
  });
  evaluable.forEach((l, i) =>
    run.perLine.push({
      sample_id: l.sample_id,
      dataset: l.dataset,
      config: c.name,
      model: c.model,
      first_relevant_rank: firstRelevantRank(rq[i]),
      top: ranked[i].slice(0, run.K),
    }),
  );
  run.opts.onProgress?.(++run.configsDone, run.configs.length, 'configs');
  log.info(
    { config: c.name, model: c.model, recall: results[results.length - 1].recall, mrr: results[results.length - 1].mrr },
    'eval: configuration done',
  );
}

/** The corpus idx of the top K hits of each query, in batches of 64. */
async function rankAll(pipeline: RetrievalPipeline, queries: string[], K: number): Promise<number[][]> {
  const ranked: number[][] = [];
  for (let s = 0; s < queries.length; s += 64) {
    const hits = await pipeline.retrieveMany(queries.slice(s, s + 64), K, 0);
    for (const h of hits) ranked.push(h.map((x) => x.idx));
  }
  return ranked;
}

/** What the table should say about a run: an inactive reranker, queries skipped by the script filter. */
function pipelineNotes(pipeline: RetrievalPipeline): string[] {
  const notes: string[] = [];
  if (pipeline.rerankStatus && !pipeline.rerankStatus.active)
    notes.push(`reranker not active (${pipeline.rerankStatus.reason}); retrieval order kept`);
  const st = pipeline.stats();
  if (st.skippedScript) notes.push(`${st.skippedScript} OCR lines below the Arabic share: no retrieval`);
  return notes;
}
