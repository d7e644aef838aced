/**
 * Something this worker lacks — an environment variable, a model file — that another worker polling the same
 * task queue may have. Retrying on this worker cannot fix it; retrying on another one can, so the activity
 * layer (activities/failure-kind.ts) retries it elsewhere and fails the run once every worker has failed the
 * same way. `fix` says what to do, in the words a user acts on.
 */
export class WorkerSetupError extends Error {
  constructor(
    /** What is missing, e.g. `environment variable HO_KEY is not set`. */
    readonly problem: string,
    /** The fix, e.g. `set it in the worker's environment`. */
    readonly fix: string,
  ) {
    super(`${problem} — ${fix}`);
    this.name = 'WorkerSetupError';
  }
}

/** The error for an API key variable missing from this process's environment. */
export function missingKeyError(variable: string): WorkerSetupError {
  return new WorkerSetupError(`environment variable ${variable} is not set`, "set it in the worker's environment");
}
