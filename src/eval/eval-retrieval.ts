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
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeRows } from '../embed/embedder';
import { indexFiles } from '../index/manifest';
import { RAGRetriever, type RetrievedChunk } from '../index/retriever';
import { writeJsonAtomic, writeJsonlAtomic } from '../io/jsonl';
import { effectiveFetchK, resolvePipelineOptions, type RetrievalPipelineInput, type RetrievalPipelineOptions } from '../retrieval/config';
import { LexicalIndex } from '../retrieval/lexical-index';
import { createRetrievalPipeline, type BaseRetriever, type PipelineDeps, type RetrievalPipeline } from '../retrieval/pipeline';
import { corpusStoreFrom, type CorpusStore } from '../retrieval/store';
import { MatrixFileVectors } from '../retrieval/vectors';
import { sha256Text } from '../util/hash';
import { childLogger } from '../util/log';
import { createProgress, type ProgressOptions } from '../util/progress';
import { buildGoldenSet, type GoldenLine, type GoldenOptions, type GoldenSet } from './golden';
import { firstRelevantRank, rankingMetrics, type RankingMetrics } from './metrics';

const log = childLogger('eval');

export const EVAL_CHART_TEMPLATE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'charts', 'retrieval_eval.vl.json');

export interface EvalModelSpec {
  /** Short name used in config rows and cache folders, e.g. "e5-small". */
  name: string;
  modelDir: string;
  /** Token limit (default 128, the study config's). */
  maxLength?: number;
  batchSize?: number;
  threads?: number;
}

export interface EvalConfig {
  name: string;
  model: string;
  pipeline: RetrievalPipelineInput;
}

export interface EvalRetrievalOptions {
  openitiRoot: string;
  ocrGsRoot: string;
  /** Where retrieval_eval.json, retrieval_eval.vl.json, golden.jsonl and retrieval_eval_lines.jsonl go. */
  outDir: string;
  /** Corpus, indexes and query caches (default `<outDir>/cache`). */
  cacheDir?: string;
  /** Embedding models (default: multilingual-e5-small and all-MiniLM-L6-v2 under `<repo>/models`). */
  models?: EvalModelSpec[];
  /** Configurations (default: defaultEvalConfigs(models)). */
  configs?: EvalConfig[];
  /** Cut-offs (default [1, 3, 10]). */
  ks?: number[];
  /** Candidates for stages that need them (default 50), unless a config sets fetch_k. */
  fetchK?: number;
  /** Golden-set options (sizes, quality threshold, seed…). */
  golden?: Partial<Omit<GoldenOptions, 'openitiRoot' | 'ocrGsRoot' | 'cacheDir' | 'onProgress'>>;
  /** Only the first N evaluable lines (tests); default all. */
  maxQueries?: number;
  progressMode?: ProgressOptions['mode'];
  onProgress?: (done: number, total: number, stage: string) => void;
}

export interface ConfigResult extends RankingMetrics {
  config: string;
  model: string;
  /** Resolved non-default pipeline options (for the table). */
  options: RetrievalPipelineInput;
  per_book: Record<string, RankingMetrics>;
  /** Wall time of the pipeline over all queries (dense search served from the cache). */
  seconds: number;
  /** e.g. the reranker fallback reason. */
  notes: string[];
}

export interface EvalRetrievalSummary {
  created_at: string;
  golden: Awaited<ReturnType<typeof buildGoldenSet>>['summary'];
  queries: number;
  ks: number[];
  models: { name: string; model_dir: string; index: string; corpus_sha256: string; embedded_seconds: number | null }[];
  results: ConfigResult[];
  best: { by: string; config: string; model: string; value: number };
  files: { summary: string; chart: string; golden: string; lines: string };
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function defaultEvalModels(root = REPO_ROOT): EvalModelSpec[] {
  return [
    { name: 'e5-small', modelDir: path.join(root, 'models', 'multilingual-e5-small') },
    { name: 'minilm-l6', modelDir: path.join(root, 'models', 'all-MiniLM-L6-v2') },
  ];
}

/** The comparison the brief asks for; the first model gets every configuration, others the key ones. */
export function defaultEvalConfigs(models: readonly EvalModelSpec[]): EvalConfig[] {
  const hybrid = { enabled: true, fusion: 'rrf' as const };
  const rerank = { enabled: true, method: 'lexical' as const };
  const out: EvalConfig[] = [];
  models.forEach((m, i) => {
    const all: [string, RetrievalPipelineInput][] = [
      ['dense', {}],
      ['lexical (BM25 char-3)', { hybrid: { enabled: true, fusion: 'weighted', dense_weight: 0 } }],
      ['hybrid rrf', { hybrid }],
      ['hybrid weighted 0.5', { hybrid: { enabled: true, fusion: 'weighted', dense_weight: 0.5 } }],
      ['dense + rerank', { rerank }],
      ['hybrid + rerank', { hybrid, rerank }],
      ['dense + mmr 0.5', { mmr: { enabled: true, lambda: 0.5 } }],
      ['hybrid + rerank + mmr 0.7', { hybrid, rerank, mmr: { enabled: true, lambda: 0.7 } }],
      ['dense + cross-encoder (no model: fallback)', { rerank: { enabled: true, method: 'cross_encoder', model_dir: null } }],
    ];
    const pick = i === 0 ? all : all.filter(([n]) => n === 'dense' || n === 'hybrid + rerank');
    for (const [name, pipeline] of pick) out.push({ name, model: m.name, pipeline });
  });
  return out;
}

interface DenseCache {
  /** Per query: [idx, score] pairs, best first. */
  lists: [number, number][][];
  vectors: Float32Array;
  dims: number;
}

/** Dense candidates + query vectors of all queries, from the real retriever, cached on disk. */
async function denseCandidates(retriever: RAGRetriever, queries: string[], fetchK: number, dir: string): Promise<DenseCache> {
  const m = retriever.manifest!;
  const key = sha256Text(JSON.stringify({ model: m.model.sha256, corpus: m.corpus.sha256, fetchK, queries })).slice(0, 16);
  const jsonFile = path.join(dir, `queries-${key}.json`);
  const vecFile = path.join(dir, `queries-${key}.f32`);
  const dims = m.model.dims;
  if (existsSync(jsonFile) && existsSync(vecFile)) {
    const lists = JSON.parse(readFileSync(jsonFile, 'utf8')) as [number, number][][];
    const buf = readFileSync(vecFile);
    const vectors = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    if (lists.length === queries.length && vectors.length === queries.length * dims) return { lists, vectors, dims };
  }
  const lists: [number, number][][] = [];
  const vectors = new Float32Array(queries.length * dims);
  const B = 64;
  const bar = createProgress({ label: `eval: queries ${m.model.id}`, total: queries.length });
  try {
    for (let s = 0; s < queries.length; s += B) {
      const batch = queries.slice(s, s + B);
      const hits = await retriever.retrieveMany(batch, fetchK, 0);
      for (const h of hits) lists.push(h.map((c) => [c.idx, c.score]));
      vectors.set(normalizeRows(await retriever.model!.embedQueries(batch), batch.length), s * dims);
      bar.update(Math.min(queries.length, s + B));
    }
  } finally {
    bar.stop();
  }
  writeJsonAtomic(jsonFile, lists);
  const fd = openSync(vecFile, 'w');
  try {
    writeSync(fd, Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  } finally {
    closeSync(fd);
  }
  return { lists, vectors, dims };
}

/** A BaseRetriever answering from the dense cache (queries must be among the cached ones). */
function cachedBase(store: CorpusStore, queries: string[], cache: DenseCache): BaseRetriever {
  const at = new Map<string, number>();
  queries.forEach((q, i) => {
    if (!at.has(q.trim())) at.set(q.trim(), i);
  });
  return {
    config: { maxChunkChars: 150 },
    async retrieveMany(qs, k = 3, minScore = 0) {
      return qs.map((q) => {
        const i = at.get(q.trim());
        if (i === undefined) throw new Error(`eval: query not in the dense cache: ${q.slice(0, 40)}`);
        const list = cache.lists[i];
        if (k > list.length && list.length < store.texts.length) throw new Error(`eval: dense cache holds ${list.length} candidates, ${k} asked`);
        return list
          .filter(([, s]) => s >= minScore)
          .slice(0, k)
          .map(([idx, score], r): RetrievedChunk => ({ text: store.texts[idx], source_uri: store.uris[idx], score, rank: r + 1, idx, date: store.dates[idx] }));
      });
    },
  };
}

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
interface EvalRun {
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

export async function evalRetrieval(opts: EvalRetrievalOptions): Promise<EvalRetrievalSummary> {
  const t0 = Date.now();
  const outDir = path.resolve(opts.outDir);
  const cacheDir = path.resolve(opts.cacheDir ?? path.join(outDir, 'cache'));
  mkdirSync(cacheDir, { recursive: true });
  const ks = opts.ks ?? [1, 3, 10];
  const models = opts.models ?? defaultEvalModels();
  const configs = opts.configs ?? defaultEvalConfigs(models);
  for (const c of configs) if (!models.some((m) => m.name === c.model)) throw new Error(`eval config "${c.name}" names model "${c.model}", which is not among ${models.map((m) => m.name).join(', ')}`);

  // 1. Golden set and its corpus.
  const golden = await buildGoldenSet({ ...opts.golden, openitiRoot: opts.openitiRoot, ocrGsRoot: opts.ocrGsRoot, cacheDir, onProgress: opts.onProgress });
  const run = startRun(opts, { ks, configs, cacheDir }, golden);

  // 2. Every configuration, model by model (each model's index and dense cache built once).
  for (const m of models.filter((x) => configs.some((c) => c.model === x.name))) await evalModel(m, run);

  // 3. Outputs.
  const summary = writeEvalOutputs(outDir, golden, run);
  log.info({ seconds: (Date.now() - t0) / 1000, best: summary.best }, 'eval: done');
  return summary;
}

/** Writes the golden corpus and picks the queries: the evaluable lines (the first maxQueries). */
function startRun(opts: EvalRetrievalOptions, s: { ks: number[]; configs: EvalConfig[]; cacheDir: string }, golden: GoldenSet): EvalRun {
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
  const maxFetch = Math.max(K, ...configs.map((c) => effectiveFetchK(resolvePipelineOptions({ ...c.pipeline, fetch_k: c.pipeline.fetch_k ?? fetchK }), K)));
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
async function evalModel(m: EvalModelSpec, run: EvalRun): Promise<void> {
  const dir = path.join(run.cacheDir, m.name);
  mkdirSync(dir, { recursive: true });
  const indexPath = path.join(dir, 'index.usearch');
  const retriever = await RAGRetriever.open(
    { indexPath, corpusPath: run.corpusPath, embedding: { modelDir: m.modelDir, maxLength: m.maxLength ?? 128, batchSize: m.batchSize, threads: m.threads }, index: { type: 'exact' } },
    { loadIndex: false },
  );
  if (!retriever.model) throw new Error(`eval: model ${m.name} unavailable: ${retriever.disabledReason}`);
  try {
    const tb = Date.now();
    const manifest = await retriever.buildIndex(run.corpusPath, indexPath, { showProgress: run.opts.progressMode !== 'silent' });
    const builtNow = Date.parse(manifest.created_at) >= tb;
    run.modelInfo.push({ name: m.name, model_dir: m.modelDir, index: indexPath, corpus_sha256: manifest.corpus.sha256, embedded_seconds: builtNow ? (Date.now() - tb) / 1000 : null });
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

/** Query vectors served from the dense cache (every query must be among the cached ones). */
function cachedQueryEmbedder(queries: string[], cache: DenseCache): (qs: string[]) => Promise<Float32Array> {
  const qIndex = new Map(queries.map((q, i) => [q.trim(), i]));
  return async (qs: string[]) => {
    const out = new Float32Array(qs.length * cache.dims);
    qs.forEach((q, r) => {
      const i = qIndex.get(q.trim());
      if (i === undefined) throw new Error('eval: query vector not cached');
      out.set(cache.vectors.subarray(i * cache.dims, (i + 1) * cache.dims), r * cache.dims);
    });
    return out;
  };
}

/** The lexical index a hybrid configuration needs, built on first use and shared; undefined without hybrid. */
function lexicalIndexFor(o: RetrievalPipelineOptions, run: EvalRun): LexicalIndex | undefined {
  if (!o.hybrid.enabled) return undefined;
  const lk = `${o.hybrid.ngram}:${o.hybrid.k1}:${o.hybrid.b}:${o.hybrid.max_df}`;
  if (!run.lexicalIndexes.has(lk)) run.lexicalIndexes.set(lk, LexicalIndex.build(run.store.texts, { ngram: o.hybrid.ngram, k1: o.hybrid.k1, b: o.hybrid.b, maxDf: o.hybrid.max_df }));
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
  for (const book of [...new Set(evaluable.map((l) => l.dataset))]) perBook[book] = rankingMetrics(rq.filter((_, i) => evaluable[i].dataset === book), ks);
  results.push({ config: c.name, model: c.model, options: changedOptions(input), ...rankingMetrics(rq, ks), per_book: perBook, seconds, notes });
  evaluable.forEach((l, i) => run.perLine.push({ sample_id: l.sample_id, dataset: l.dataset, config: c.name, model: c.model, first_relevant_rank: firstRelevantRank(rq[i]), top: ranked[i].slice(0, run.K) }));
  run.opts.onProgress?.(++run.configsDone, run.configs.length, 'configs');
  log.info({ config: c.name, model: c.model, recall: results[results.length - 1].recall, mrr: results[results.length - 1].mrr }, 'eval: configuration done');
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
  if (pipeline.rerankStatus && !pipeline.rerankStatus.active) notes.push(`reranker not active (${pipeline.rerankStatus.reason}); retrieval order kept`);
  const st = pipeline.stats();
  if (st.skippedScript) notes.push(`${st.skippedScript} OCR lines below the Arabic share: no retrieval`);
  return notes;
}

/** The best configuration (recall@3, then MRR) and the four output files; returns the summary. */
function writeEvalOutputs(outDir: string, golden: GoldenSet, run: EvalRun): EvalRetrievalSummary {
  const { ks, results } = run;
  const at3 = ks.includes(3) ? '@3' : `@${ks[0]}`;
  const best = results.reduce((a, b) => (b.recall[at3] > a.recall[at3] || (b.recall[at3] === a.recall[at3] && b.mrr > a.mrr) ? b : a));
  mkdirSync(outDir, { recursive: true });
  const files = {
    summary: path.join(outDir, 'retrieval_eval.json'),
    chart: path.join(outDir, 'retrieval_eval.vl.json'),
    golden: path.join(outDir, 'golden.jsonl'),
    lines: path.join(outDir, 'retrieval_eval_lines.jsonl'),
  };
  const summary: EvalRetrievalSummary = {
    created_at: new Date().toISOString(),
    golden: golden.summary,
    queries: run.queries.length,
    ks,
    models: run.modelInfo,
    results,
    best: { by: `recall${at3}`, config: best.config, model: best.model, value: best.recall[at3] },
    files,
  };
  writeJsonlAtomic(files.golden, golden.lines satisfies GoldenLine[]);
  writeJsonlAtomic(files.lines, run.perLine);
  writeJsonAtomic(files.chart, evalChart(results));
  writeJsonAtomic(files.summary, summary);
  return summary;
}

/** The Vega-Lite template filled with one row per (configuration, metric). */
export function evalChart(results: readonly ConfigResult[]): Record<string, unknown> {
  const spec = JSON.parse(readFileSync(EVAL_CHART_TEMPLATE, 'utf8')) as Record<string, unknown>;
  const rows: Record<string, unknown>[] = [];
  for (const r of results) {
    const label = `${r.model} · ${r.config}`;
    for (const [k, v] of Object.entries(r.recall)) rows.push({ config: label, metric: `recall${k}`, value: v });
    rows.push({ config: label, metric: `MRR@${r.mrr_at}`, value: r.mrr });
  }
  spec.data = { values: rows };
  return spec;
}

/** The results as a Markdown table (the bench prints it). */
export function formatEvalTable(summary: EvalRetrievalSummary): string {
  const ks = summary.ks;
  const head = ['model', 'configuration', ...ks.map((k) => `R@${k}`), `MRR@${Math.max(...ks)}`, ...ks.map((k) => `P@${k}`), 's'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  for (const r of summary.results) {
    const f = (x: number) => x.toFixed(3);
    lines.push(`| ${[r.model, r.config + (r.notes.length ? ' †' : ''), ...ks.map((k) => f(r.recall[`@${k}`])), f(r.mrr), ...ks.map((k) => f(r.precision[`@${k}`])), r.seconds.toFixed(1)].join(' | ')} |`);
  }
  const notes = summary.results.filter((r) => r.notes.length).map((r) => `† ${r.model} · ${r.config}: ${r.notes.join('; ')}`);
  return [...lines, ...notes].join('\n');
}

/** The console report of an evaluation (golden set, models, table, best configuration, files). */
export function describeEvalSummary(summary: EvalRetrievalSummary): string {
  const g = summary.golden;
  const out = [
    `## Retrieval evaluation — ${summary.queries} evaluable OCR lines (of ${g.lines}; ${Object.entries(g.by_status).map(([k, v]) => `${k} ${v}`).join(', ')})`,
    `corpus: ${g.corpus.total} sentences (${g.corpus.source_units} from the two source books, ${g.corpus.distractors} distractors from the rest of the slice)`,
    ...g.books.map((b) => `  ${b.key}: ${b.evaluable}/${b.lines} evaluable, source ${b.sources.join(', ')}`),
    ...summary.models.map((m) => `  model ${m.name}: index ${m.embedded_seconds === null ? 'reused from cache' : `built in ${m.embedded_seconds.toFixed(0)} s`}`),
    '',
    formatEvalTable(summary),
    '',
    `best ${summary.best.by}: ${summary.best.value.toFixed(3)} — ${summary.best.model} · ${summary.best.config}`,
    `files: ${summary.files.summary}, ${summary.files.chart}`,
  ];
  return out.join('\n');
}
