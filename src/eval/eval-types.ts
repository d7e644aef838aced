/** What a retrieval evaluation is asked (models, configurations, cut-offs) and what it answers (metrics per configuration). */
import type { RetrievalPipelineInput } from '../retrieval/config';
import type { ProgressOptions } from '../util/progress';
import type { buildGoldenSet, GoldenOptions } from './golden';
import type { RankingMetrics } from './metrics';

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
