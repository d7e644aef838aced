/**
 * Batch activities (docs/batch.md): write the batch files (`--batch-out`, and the first step of
 * `infer.backend: openai_batch`), one file through the Batch API (upload, create, wait with heartbeats, download;
 * resumable by the batch id it records, cancellable with the remote batch), and the import of outputs
 * (`--batch-in`).
 */
import path from 'node:path';
import { resolvePath } from '../src/config/load';
import * as inference from '../src/stages/infer/infer';
import { batchIn } from '../src/stages/batch/batch-in';
import { batchClient, batchSettings } from '../src/stages/batch/batch-client';
import type { BatchFileEntry } from '../src/stages/batch/batch-manifest';
import { batchOut } from '../src/stages/batch/batch-out';
import type { BatchInResult, BatchOutResult, RemoteBatchResult } from '../src/stages/batch/types';
import { runRemoteBatch, type RemoteBatchState } from '../src/stages/batch/remote-batch';
import type { StageInput } from '../src/stages/shared/types';
import { asActivity } from './as-activity';
import { runExclusive } from './exclusive';
import { keptAlive, optionsOfInput, withActivityHooks } from './hooks';

/** Where `infer.backend: openai_batch` writes its batch files: `<results>/batch/api/`. */
export function apiBatchDir(input: StageInput): string {
  return path.join(resolvePath(input.config.paths.results_dir), 'batch', 'api');
}

export function createBatchActivities() {
  const options = optionsOfInput(inference.optionsFrom);
  return {
    /** The batch files of every arm × replicate (`--batch-out DIR`, else the openai_batch folder). */
    async writeBatchFiles(input: StageInput): Promise<BatchOutResult> {
      const dir = input.options.batchOut ? resolvePath(input.options.batchOut) : apiBatchDir(input);
      return asActivity(() => keptAlive('infer:batch-out', () => batchOut(options(input), dir, batchSettings(input.config).limits)));
    },
    /** One file through the Batch API; heartbeats carry the request counts and the batch id a retry resumes. */
    async runRemoteBatch(args: { input: StageInput; dir: string; entry: BatchFileEntry }): Promise<RemoteBatchResult> {
      const { input, dir, entry } = args;
      const s = batchSettings(input.config);
      return asActivity(() =>
        runExclusive(path.join(dir, entry.file), (signal) =>
          withActivityHooks<RemoteBatchResult, RemoteBatchState>(`batch ${entry.file}`, 'requests', entry.lines, (hooks) =>
            runRemoteBatch(
              { client: batchClient(input.config), dir, entry, pollMs: s.pollMs, completionWindow: s.completionWindow },
              { ...hooks, signal },
            ),
          ),
        ),
      );
    },
    /** Batch outputs into the runs' corrections (`--batch-in FILE…`, or the files the remote batches gave). */
    async importBatchOutputs(args: { input: StageInput; files?: string[] }): Promise<BatchInResult> {
      const files = (args.files ?? args.input.options.batchIn ?? []).map((f) => resolvePath(f));
      return asActivity(() => keptAlive('infer:batch-in', () => batchIn(options(args.input), files)));
    },
  };
}
