/** What a correction run is asked (options), what it answers (summary), and the errors that carry that summary. */
import type { CorrectionCounts } from './correction-counts';
import type { GuardSettings } from './guard';
import type { PromptTemplate } from '../prompts/templates';
import type { InferenceInputRow } from './records';
import type { FailureInfo, LlmBackend } from './types';

export type PromptKind = 'rag' | 'zero_shot';

export interface RunCorrectionsOptions {
  /** inference_input.jsonl, or the records themselves. */
  inputPath: string | readonly InferenceInputRow[];
  /** corrections.jsonl (created or resumed). */
  outputPath: string;
  backend: LlmBackend;
  /** The kind of prompt: `rag` (p5v1 with the record's retrieval_context) or `zero_shot` (the baseline's v1). */
  prompt: PromptKind;
  /** The prompt's template (src/prompts/templates.ts); absent = the built-in of `prompt` (p5v1 or v1). */
  template?: PromptTemplate;
  /** The key of a JSON answer that holds the correction (a JSON `response_format`, src/llm/decoding.ts); absent = plain text. */
  jsonField?: string | null;
  /** What log lines, progress and errors call this run (the arm's name; default: the kind of prompt). */
  label?: string;
  /** Parallel calls (default: the backend's own concurrency). */
  concurrency?: number;
  /** Max tokens per answer (default: the backend's). */
  maxTokens?: number;
  /** Only these datasets (default: all in the input). */
  datasets?: readonly string[];
  /** Attempt at most this many new samples in this run (after skipping the ones already done). */
  limit?: number;
  /** Remove failed records of the selected samples from the output and try them again. */
  retryFailed?: boolean;
  /** Stop early (activity cancellation): no new calls start; finished ones are written and checkpointed. */
  signal?: AbortSignal;
  /** Called after each written record and at start/end: (done incl. existing, total incl. existing). */
  onProgress?: (done: number, total: number) => void;
  /** Write every N records (default 100) … */
  checkpointEvery?: number;
  /** … or every N ms (default 2000), whichever comes first; fsync at most every N ms. A crash of the process
   *  loses the records not yet written, one of the machine those not yet fsync'd. */
  checkpointMs?: number;
  /** Give up (throw) after this many consecutive failures — a dead server or wrong model (default 20; 0 = never). */
  maxConsecutiveFailures?: number;
  /** Progress display (default: bar in a TTY, log lines otherwise). */
  progress?: 'bar' | 'log' | 'silent';
  /**
   * Over-correction guard (./guard). Enabled: `corrected_text` is the trimmed/guarded text and each successful
   * record also carries `raw_text` and `guard` after `raw_output`. Absent or disabled: records exactly as before.
   * Failed records never carry the guard's keys (the guard did not run; `error` says why).
   */
  guard?: GuardSettings;
}

export interface RunCorrectionsSummary extends CorrectionCounts {
  outputPath: string;
  prompt: PromptKind;
  /** The run's name in messages: the arm (options.label), else the kind of prompt. */
  label: string;
  backend: string;
  model: string;
  /** Input records after the dataset filter. */
  inputRecords: number;
  /** Input records whose sample_id appeared earlier in the input (skipped). */
  duplicateInput: number;
  /** The first few of those duplicate sample_ids (examples for the stage's summary). */
  duplicateInputIds: string[];
  /** Samples already in the output (skipped). */
  skippedExisting: number;
  /** Failed records removed from the output to be retried (`retryFailed`). */
  retriedFailed: number;
  /** Samples still missing from the output (limit reached, aborted, or gave up). */
  remaining: number;
  aborted: boolean;
  /** The first outage failure when the run stopped because the endpoint was not serving (null otherwise). */
  outage: FailureInfo | null;
  /** Only with the guard enabled: records written in this run by guard decision (`kept`, `fell_back:empty`, …). */
  guardDecisions?: Record<string, number>;
}

export class RunCorrectionsError extends Error {
  constructor(
    message: string,
    readonly summary: RunCorrectionsSummary,
  ) {
    super(message);
    this.name = 'RunCorrectionsError';
  }
}

/** The endpoint stopped serving (after the backend's retries); nothing was recorded for the lines left. */
export class LlmUnavailableError extends RunCorrectionsError {
  constructor(
    message: string,
    summary: RunCorrectionsSummary,
    readonly failure: FailureInfo,
  ) {
    super(message, summary);
    this.name = 'LlmUnavailableError';
  }
}
