/**
 * The counters of a correction run that its shards add up: records written and their outcome, prompt types,
 * tokens and time. No imports, so the infer workflows can build their running totals from it too.
 */
export interface CorrectionCounts {
  /** Records appended in this run (successes + recorded failures). */
  written: number;
  succeeded: number;
  failed: number;
  failuresByReason: Record<string, number>;
  promptTypes: Record<string, number>;
  promptTokens: number;
  completionTokens: number;
  elapsedMs: number;
}

/** Every counter at zero, in the key order the summaries are written with. */
export function zeroCorrectionCounts(): CorrectionCounts {
  return {
    written: 0,
    succeeded: 0,
    failed: 0,
    failuresByReason: {},
    promptTypes: {},
    promptTokens: 0,
    completionTokens: 0,
    elapsedMs: 0,
  };
}
