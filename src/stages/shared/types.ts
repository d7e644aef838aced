/**
 * What every stage shares: the CLI options that are not config keys, the hooks a caller (an activity, a test,
 * a notebook) passes to `run`, and the error for input that retrying cannot fix. No Temporal import here —
 * stages are plain code; activities adapt them.
 */
import type { Config } from '../../config/schema';
import type { LlmLoad } from '../infer/llm-load';
import type { SampleSpec } from '../../datasets/sample';

/** CLI options that are not config keys (config-key flags such as --top-k are merged into the config). */
export interface RunOptions {
  /** `--limit N`: the first N lines of each dataset (a smoke test). */
  limit?: number;
  /** `--sample N --seed S`: a random pilot of N lines per dataset, drawn as whole clusters (src/datasets/sample.ts). */
  sample?: SampleSpec;
  /** Subset of dataset keys. */
  datasets?: string[];
  corpusPath?: string;
  indexPath?: string;
  /** Existing zero-shot results: the infer stage then skips the baseline arm. */
  baselineDir?: string;
  noErrorAnalysis?: boolean;
  /** A corrections.jsonl produced elsewhere, validated and imported instead of running the LLM. */
  importFile?: string;
  /** `phase5 infer --batch-out DIR`: write the requests as OpenAI Batch files instead of sending them (docs/batch.md). */
  batchOut?: string;
  /** `phase5 infer --batch-in FILE…`: import batch output files as corrections (docs/batch.md). */
  batchIn?: string[];
  /** `phase5 infer --retry-failed`: remove the failed records of the selected lines and correct them again. */
  retryFailed?: boolean;
  /** `phase5 infer --arm NAME`: run only this study arm (with `--import`: the arm the file is imported into). */
  arm?: string;
  /** Set by the CLI after the run key is computed: the run marker every activity checks (./run-marker.ts). */
  runMarker?: string;
}

/** The small value a stage activity receives: the validated config (a few KB), CLI options and the force flag. */
export interface StageInput {
  run: string;
  config: Config;
  options: RunOptions;
  /** Redo the stage's outputs even when they are up to date. */
  force: boolean;
}

/**
 * How a caller watches and steers a long stage. All optional: a notebook passes nothing.
 * - `onProgress(done, total, step)`: position only, may be called often (callers throttle);
 * - `checkpoint(state)`: a durable cursor the stage has reached (its files are consistent up to it);
 * - `resumeFrom`: the last checkpoint a previous, interrupted run reported;
 * - `signal`: stop early (the stage throws the signal's reason).
 */
export interface StageHooks<C extends object = Record<string, unknown>> {
  onProgress?(done: number, total: number, step?: string): void;
  checkpoint?(state: C): void;
  resumeFrom?: C;
  signal?: AbortSignal;
  /** Infer: the LLM endpoint's load, reported with the progress (small numbers, for status lines). */
  onLoad?(load: LlmLoad): void;
}

/** Bad input that retrying cannot fix (missing file, malformed line, stale index): the message names the fix. */
export class UserInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserInputError';
  }
}

/** Throw the signal's reason when the caller asked the stage to stop. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}
