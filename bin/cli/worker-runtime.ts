/**
 * One worker process serving the CPU queue, the GPU queue, or both. Workflow code is bundled once and
 * shared; activity concurrency per queue comes from the config. SIGINT/SIGTERM shut down gracefully:
 * polling stops, running activities get a grace period to checkpoint (their outputs are resumable anyway).
 */
import path from 'node:path';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type ActivitySlotInfo,
  type CustomSlotSupplier,
  type WorkerOptions as SdkWorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { IllegalStateError } from '@temporalio/common';
import { createActivities, defaultDeps, type ActivityDeps } from '../../activities';
import { describeEndpointOverride, type EndpointOverride } from '../../src/llm/endpoint';
import { EndpointHealthGate, GatedSlots } from '../../src/llm/endpoint-health';
import { allUp, PauseGate, type Gate } from '../../src/llm/pause-gate';
import { redactedUrl } from '../../src/llm/openai-backend';
import { PROJECT_ROOT } from '../../src/config/load';
import { connectionFailure, temporalConnectOptions } from '../../src/temporal/connect';
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

/** The SDK's custom activity slot supplier over `slots`: while the endpoint is down no slot is free, so no poll. */
export function gatedActivitySlots(slots: GatedSlots): CustomSlotSupplier<ActivitySlotInfo> {
  return {
    type: 'custom',
    // Rejects with the abort signal's reason when the SDK drops the reservation (shutdown), as it expects.
    reserveSlot: async (_ctx, abortSignal) => {
      await slots.reserve(abortSignal);
      return {};
    },
    tryReserveSlot: () => (slots.tryReserve() ? {} : null), // eager activities: never wait
    markSlotUsed: () => undefined,
    releaseSlot: () => slots.release(),
  };
}

/**
 * The queue the infer stage runs on (phase5-gpu) pauses while this worker's own endpoint is down: its outage
 * failures mark the gate down, and until the endpoint answers again (GET /health, or GET <base_url>/models where the
 * server has no /health: src/llm/endpoint-health.ts) it takes no new activity tasks —
 * else the idle worker would take (and fail within milliseconds) most shards, healthy workers would sit idle
 * and shards would use up infer.outage_budget. Only with a base-URL override: without one every worker talks
 * to the config's endpoints — shared, and per arm possibly several — so one arm's outage must not stop a
 * worker from serving the others. Returns null when there is nothing to gate.
 */
export function endpointGate(
  config: Config,
  endpoint: EndpointOverride | undefined,
  queues: string[],
): { gate: EndpointHealthGate; queue: string } | null {
  const queue = config.temporal.queues[config.temporal.stages.infer.queue];
  if (!endpoint?.baseUrl || !queues.includes(queue)) return null;
  const url = redactedUrl(endpoint.baseUrl);
  const gate = new EndpointHealthGate({
    baseUrl: endpoint.baseUrl,
    onPause: (reason) =>
      logger.warn(
        { endpoint: url, queue, reason },
        `LLM endpoint ${url} is not serving — pausing ${queue}: no new tasks until it answers (GET /health, else …/models, every 1–15 s)`,
      ),
    onResume: (downMs, probes) =>
      logger.warn(
        { endpoint: url, queue, down_ms: downMs, probes },
        `LLM endpoint ${url} answers again after ${Math.round(downMs / 1000)} s — resuming ${queue}`,
      ),
  });
  return { gate, queue };
}

/** The SDK's defaults without a tuner (a tuner replaces all four slot kinds). */
const DEFAULT_SLOTS = { workflow: 40, localActivity: 100, nexus: 100 };

/** How long a worker takes no infer task after one failed on something only it lacks. */
export const WORKER_LOCAL_PAUSE_MS = 20_000;

/**
 * The infer queue pauses for WORKER_LOCAL_PAUSE_MS after a task failed on something this worker lacks (a key
 * variable, a model file) and is retried on the other workers (activities/failure-kind.ts): this idle worker,
 * always first to poll, must not take the retry back only to fail it again. A failure that ends the run (no other
 * live worker) does not pause: the tasks still queued must fail at once too, not one per pause (an arm's partial
 * merge queued behind them would wait 20 s per task). One log line per pause.
 */
export function workerLocalPause(
  config: Config,
  queues: string[],
  pauseMs = WORKER_LOCAL_PAUSE_MS,
): { gate: PauseGate; queue: string; pause(reason: string): void } | null {
  const queue = config.temporal.queues[config.temporal.stages.infer.queue];
  if (!queues.includes(queue)) return null;
  const gate = new PauseGate();
  const pause = (reason: string): void => {
    if (gate.isUp)
      logger.warn(
        { queue, reason, pause_ms: pauseMs },
        `this worker cannot run an infer task (${reason}) — pausing ${queue} for ${Math.round(pauseMs / 1000)} s so other workers take it`,
      );
    gate.pause(pauseMs);
  };
  return { gate, queue, pause };
}

/** Activity slots of one queue: `slots` of them, gated by `gate` when given. */
function activitySlots(slots: number, gate: Gate | undefined): Partial<SdkWorkerOptions> {
  if (!gate) return { maxConcurrentActivityTaskExecutions: slots };
  return {
    tuner: {
      activityTaskSlotSupplier: gatedActivitySlots(new GatedSlots(slots, gate)),
      workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: DEFAULT_SLOTS.workflow },
      localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: DEFAULT_SLOTS.localActivity },
      nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: DEFAULT_SLOTS.nexus },
    },
    // As many pollers as without a tuner (min(10, slots)); each waits for a slot first.
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: Math.min(10, slots) },
  };
}

/** The worker's connection over Temporal's own client configuration (TLS, API key), or the one-line failure. */
async function connectNative(config: Config): Promise<NativeConnection> {
  const opts = temporalConnectOptions(config);
  try {
    return await NativeConnection.connect(opts);
  } catch (err) {
    throw await connectionFailure(opts, err);
  }
}

export async function createWorkers(opts: WorkerOptions): Promise<{ workers: Worker[]; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    installRuntime();
    runtimeInstalled = true;
  }
  const { config } = opts;
  const connection = await connectNative(config);
  const bundle = await workflowBundle();
  const gated = opts.deps ? null : endpointGate(config, opts.endpoint, opts.queues);
  const paused = opts.deps ? null : workerLocalPause(config, opts.queues);
  const deps = opts.deps ?? {
    ...defaultDeps(opts.endpoint),
    ...(gated ? { endpointDown: (reason: string) => gated.gate.markDown(reason) } : {}),
    ...(paused ? { workerLocalFailure: paused.pause } : {}),
  };
  const gateOf = (queue: string): Gate | undefined => {
    const gates = [...(gated?.queue === queue ? [gated.gate] : []), ...(paused?.queue === queue ? [paused.gate] : [])];
    return gates.length ? allUp(gates) : undefined;
  };
  const activities = createActivities(deps);
  const workers = await Promise.all(
    opts.queues.map((taskQueue) =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue,
        workflowBundle: bundle,
        activities,
        ...activitySlots(config.temporal.concurrency[queueKind(config, taskQueue)], gateOf(taskQueue)),
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
