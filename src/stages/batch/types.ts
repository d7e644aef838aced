/**
 * What the batch steps return (small: crosses Temporal) — the files written, the remote batches, the import —
 * and the batch workflow's result.
 */
import type { Skips } from '../shared/skips';
import type { WrittenFile } from '../shared/written-file';
import type { BatchFileEntry } from './batch-manifest';

export interface BatchOutResult {
  dir: string;
  manifest: string;
  sha256: string;
  files: BatchFileEntry[];
  /** Lines left out because the run already has a record for them, per run (`<arm>#<r>`). */
  alreadyDone: number;
}
export interface RemoteBatchResult {
  file: string;
  batchId: string;
  status: string;
  counts: { total: number; completed: number; failed: number };
  /** The downloaded output and error files (those the batch has). */
  outputs: string[];
}
export interface BatchRunImport {
  output: string;
  /** Absent when the run has no corrections file yet (nothing imported into it). */
  outputFile?: WrittenFile;
  written: number;
  failed: number;
  alreadyDone: number;
  promptTokens: number;
  completionTokens: number;
}
export interface BatchInResult {
  imported: number;
  runs: Record<string, BatchRunImport>;
  skipped: Skips;
  /** The one line that says what was imported and what was left out. */
  summary: string;
}
export interface BatchWorkflowResult {
  out?: BatchOutResult;
  remote?: RemoteBatchResult[];
  in?: BatchInResult;
  /** `infer.price` with the share the Batch API takes off (`batch_discount`), for the cost line. */
  price?: { input: number; output: number; batch_discount?: number };
}
