/**
 * How an activity fails: configuration, input and data errors become non-retryable failures with a clear message;
 * what only this worker lacks is retried on the other workers (./failure-kind.ts); everything else is retried.
 */
import { ApplicationFailure } from '@temporalio/common';
import { ConfigError } from '../src/config/load';
import { UserInputError } from '../src/stages/shared/types';
import { DatasetError, DatasetLineError } from '../src/datasets';
import { JsonlParseError } from '../src/io/jsonl';
import { CorpusBuildError } from '../src/openiti/build-options';
import { IndexCorruptError, IndexMismatchError, IndexMissingError, PartialVectorsError } from '../src/index/errors';
import { ModelDirError } from '../src/embed/model-dir';
import { isWorkerLocalError, workerLocalFailure } from './failure-kind';

/**
 * Errors that say the input, the config or a file on disk is wrong. Each is deterministic: the same input
 * fails the same way on every attempt, so retrying only delays the message the user needs.
 */
const DETERMINISTIC_ERRORS = [
  UserInputError,
  ConfigError,
  DatasetError,
  DatasetLineError,
  JsonlParseError,
  CorpusBuildError,
  IndexMissingError,
  IndexMismatchError,
  IndexCorruptError,
  PartialVectorsError,
  ModelDirError,
] as const;

export function isDeterministicError(err: unknown): err is Error {
  return DETERMINISTIC_ERRORS.some((type) => err instanceof type);
}

export interface ActivityLimits {
  maxWorkerLocalAttempts?: number;
  /**
   * Called when a worker-local failure is to be retried on another worker (not when it ends the run): the infer
   * queue's pause (bin/cli/worker-runtime.ts), which must not delay the next task when no other worker can take it.
   */
  onRetryElsewhere?(reason: string): void;
}

/**
 * Run an activity body; configuration, input and data errors become non-retryable failures with a clear message;
 * what only this worker lacks is retried on the other workers, then fails (activities/failure-kind.ts).
 */
export async function asActivity<T>(fn: () => Promise<T>, limits: ActivityLimits = {}): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isDeterministicError(err)) {
      throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
    }
    if (isWorkerLocalError(err)) {
      const failure = await workerLocalFailure(err, limits.maxWorkerLocalAttempts);
      if (!failure.nonRetryable) limits.onRetryElsewhere?.(err.message);
      throw failure;
    }
    throw err;
  }
}
