/**
 * One worker process serving the CPU queue, the GPU queue, or both. Workflow code is bundled once and
 * shared; activity concurrency per queue comes from the config. SIGINT/SIGTERM shut down gracefully:
 * polling stops, running activities get a grace period to checkpoint (their outputs are resumable anyway).
 */
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { IllegalStateError } from '@temporalio/common';
import { createActivities, defaultDeps, type ActivityDeps } from '../../activities';
import { describeEndpointOverride, type EndpointOverride } from '../../src/llm/endpoint';
import { PROJECT_ROOT } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { logFormat, logger } from '../../src/util/log';

export const WORKFLOWS_PATH = path.join(PROJECT_ROOT, 'workflows', 'index.ts');

let bundlePromise: Promise<WorkflowBundleWithSourceMap> | undefined;
/** Bundle the workflow code once per process (webpack, a few seconds). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundlePromise ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  return bundlePromise;
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (m: string, meta?: unknown) => logger.warn({ meta }, m),
  error: (m: string, meta?: unknown) => logger.error({ meta }, m),
};

export function queueKind(config: Config, queue: string): 'cpu' | 'gpu' {
  if (queue === config.temporal.queues.gpu) return 'gpu';
  if (queue === config.temporal.queues.cpu) return 'cpu';
  return queue.includes('gpu') ? 'gpu' : 'cpu';
}

let runtimeInstalled = false;

export interface WorkerOptions {
  config: Config;
  queues: string[];
  /** Seconds running activities get to finish after a shutdown signal. */
  shutdownGraceSeconds?: number;
  /** The activities' dependencies (default: the real retriever and LLM backends). */
  deps?: ActivityDeps;
  /** This worker's own LLM endpoint / local model for the real backends (ignored when `deps` is given). */
  endpoint?: EndpointOverride;
}

/**
 * Shut down on SIGINT/SIGTERM; a runtime the embedding program (a test) installed first is kept. With human
 * output (the demo's in-process worker) the SDK's own INFO lines — worker state changes — are left out.
 */
function installRuntime(): void {
  try {
    Runtime.install({ shutdownSignals: ['SIGINT', 'SIGTERM'], ...(logFormat() === 'human' ? { logger: new DefaultLogger('WARN') } : {}) });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

export async function createWorkers(opts: WorkerOptions): Promise<{ workers: Worker[]; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    installRuntime();
    runtimeInstalled = true;
  }
  const { config } = opts;
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const bundle = await workflowBundle();
  const activities = createActivities(opts.deps ?? defaultDeps(opts.endpoint));
  const workers = await Promise.all(
    opts.queues.map((taskQueue) =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue,
        workflowBundle: bundle,
        activities,
        maxConcurrentActivityTaskExecutions: config.temporal.concurrency[queueKind(config, taskQueue)],
        shutdownGraceTime: `${opts.shutdownGraceSeconds ?? 10}s`,
        // Progress reaches the server within 2 s (the SDK's default holds heartbeats up to 60 s).
        maxHeartbeatThrottleInterval: '2s',
        defaultHeartbeatThrottleInterval: '2s',
      }),
    ),
  );
  return { workers, connection };
}

/** Run until a shutdown signal; resolves after a clean shutdown. */
export async function runWorkers(opts: WorkerOptions): Promise<void> {
  const { workers, connection } = await createWorkers(opts);
  logger.info({ queues: opts.queues, address: opts.config.temporal.address, pid: process.pid }, `worker polling ${opts.queues.join(', ')}`);
  const endpoint = describeEndpointOverride(opts.endpoint ?? {});
  if (endpoint) logger.info({ endpoint: opts.endpoint }, endpoint);
  try {
    await Promise.all(workers.map((w) => w.run()));
  } finally {
    await connection.close();
    logger.info('worker stopped');
  }
}
