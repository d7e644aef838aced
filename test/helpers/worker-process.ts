/**
 * A `phase5 worker` child process for the end-to-end tests: the test's environment over the shell's (logs at
 * `error` unless the test says otherwise), variables a worker must not have removed, and its stderr kept (the
 * last 64 kB) so a test can wait for a line it prints, check what it said, or show it when a run fails.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnWorker, waitFor } from '../e2e/harness';

const KEPT = 64 * 1024;

export interface WorkerProcess {
  child: ChildProcess;
  /** What the worker has printed on stderr so far (the last 64 kB). */
  stderr(): string;
}

export interface WorkerOptions {
  /** Variables set for this worker, over the shell's (`PHASE5_LOG_LEVEL` defaults to `error`). */
  env?: NodeJS.ProcessEnv;
  /** Variables removed from its environment (an API key it must not have). */
  without?: readonly string[];
  /** The queues it serves (default: the config's). */
  queues?: readonly string[];
}

/** Start `phase5 --config <configFile> worker` as a child process. */
export function startWorkerProcess(configFile: string, opts: WorkerOptions = {}): WorkerProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, PHASE5_LOG_LEVEL: 'error', ...opts.env };
  for (const name of opts.without ?? []) delete env[name];
  const child = spawnWorker(configFile, env, ['ignore', 'ignore', 'pipe'], opts.queues);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-KEPT)));
  return { child, stderr: () => stderr };
}

/** Wait until the worker says it is serving its queues; throws with what it printed if it exits first. */
export async function waitServing(worker: WorkerProcess, timeoutMs = 120_000): Promise<void> {
  await waitFor('the worker serving', () => /^worker: serving /m.test(worker.stderr()) || worker.child.exitCode !== null, timeoutMs, 200);
  if (!/^worker: serving /m.test(worker.stderr())) throw new Error(`the worker exited ${worker.child.exitCode}: ${worker.stderr()}`);
}
