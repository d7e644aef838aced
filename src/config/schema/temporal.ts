/** `temporal`: the server, task queues, worker concurrency, and each stage's timeout and retry policy. */
import { z } from 'zod';
import { duration, nonNegInt, positiveInt } from './primitives';

const RetrySchema = z.strictObject({
  /** 0 = unlimited (Temporal's convention). */
  maximum_attempts: nonNegInt.default(5),
  initial_interval: duration.default('2s'),
  backoff_coefficient: z.number().min(1).default(2),
  maximum_interval: duration.default('1m'),
});

const StageSchema = z.strictObject({
  queue: z.enum(['cpu', 'gpu']),
  start_to_close: duration,
  /** This stage's activity retry policy; default `temporal.retry`. */
  retry: RetrySchema.optional(),
});

/**
 * Infer rides out an LLM outage (a server restart, a rate-limit storm) by retrying its activity: unlimited
 * attempts, backoff capped at a minute; `infer.outage_budget` ends an outage that does not end.
 */
const InferStageSchema = StageSchema.extend({
  retry: RetrySchema.extend({ maximum_attempts: nonNegInt.default(0), initial_interval: duration.default('5s') }).prefault({}),
});

export const TemporalSchema = z.strictObject({
  address: z.string().min(1).default('127.0.0.1:7233'),
  namespace: z.string().min(1).default('default'),
  ui_port: z.number().int().min(1).max(65535).default(8233),
  /** The Web UI's base URL for links, when it is not the dev server's (host of `address`, `ui_port`): docs/cluster.md. */
  ui_url: z.url({ protocol: /^https?$/ }).optional(),
  /** SQLite file of the embedded dev server (relative to the project root). */
  db_file: z.string().min(1).default('data/temporal/temporal.db'),
  queues: z.strictObject({ cpu: z.string().min(1).default('phase5-cpu'), gpu: z.string().min(1).default('phase5-gpu') }).prefault({}),
  /**
   * Activities one worker runs at once, per queue. Three on the GPU queue: the infer shards of a worker share its
   * endpoint limit (up to `infer.openai.concurrency`, 256), and with three shards of 256 lines (`infer.shard_size`)
   * there are always lines waiting for it — while one shard drains and the next one starts, the others fill the
   * endpoint's free slots, so a shard boundary leaves no gap.
   */
  concurrency: z.strictObject({ cpu: positiveInt.default(2), gpu: positiveInt.default(3) }).prefault({}),
  /** Most activities one workflow keeps in flight (the export's shard fan-out), however many shards there are. */
  max_parallel_activities: positiveInt.default(64),
  heartbeat_timeout: duration.default('2m'),
  /**
   * Consecutive attempts, per worker polling the queue, that may fail on something only that worker lacks (an API
   * key variable, a model file) before the run fails; it fails at once when every polling worker has failed so.
   */
  max_worker_local_attempts: positiveInt.default(3),
  retry: RetrySchema.extend({ maximum_attempts: positiveInt.default(5) }).prefault({}),
  stages: z
    .strictObject({
      build: StageSchema.default({ queue: 'cpu', start_to_close: '12h' }),
      export: StageSchema.default({ queue: 'cpu', start_to_close: '6h' }),
      infer: InferStageSchema.prefault({ queue: 'gpu', start_to_close: '24h' }),
      analyze: StageSchema.default({ queue: 'cpu', start_to_close: '1h' }),
    })
    .prefault({}),
});
