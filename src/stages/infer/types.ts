/** The infer stage's options (./infer.ts `optionsFrom`) and how it opens an arm's LLM backend. Types only. */
import type { Config } from '../../config/schema';
import type { ClusterSpec } from '../../datasets/clusters';
import type { SampleSpec } from '../../datasets/sample';
import type { BackendConfig, LlmBackend } from '../../llm/index';
import type { ArmRun } from '../study/types';

export interface InferOptions {
  /** The arms to run, in order (the baseline is left out when `--baseline-dir` supplies it). */
  arms: ArmRun[];
  /** The arm an `--import` file is written to (`--arm NAME`, default rag). */
  importArm?: ArmRun;
  datasets?: string[];
  /** `phase5 infer --limit N`: only the first N lines of each selected dataset, in input order. */
  limit?: number;
  /** `phase5 infer --sample N --seed S`: the random pilot's lines of each dataset, with the config's clusters. */
  sample?: { spec: SampleSpec; clusters: ClusterSpec };
  /** `phase5 infer --import FILE`. */
  importFile?: string;
  force: boolean;
  /** `phase5 infer --retry-failed`: remove the failed records and try those lines again. */
  retryFailed: boolean;
  /** An arm with a larger share of failed records fails the stage (`infer.max_failed_share`). */
  maxFailedShare: number;
  /** How long an outage may last, over retried attempts, before the stage gives up (`infer.outage_budget`). */
  outageBudgetMs: number;
  /** Lines per shard of the sharded infer workflow (`infer.shard_size`; default 256). */
  shardSize?: number;
  /** The config the manifest records (../study/manifest.ts); absent: no manifest is written. */
  config?: Config;
}

/** Opens the LLM backend for one arm (closed by the stage when the arm ends). */
export type OpenBackend = (config: BackendConfig) => Promise<LlmBackend>;
