/** `infer`: the LLM backend (local or an OpenAI-compatible endpoint) and how the infer stage shards and fails. */
import { z } from 'zod';
import { DecodingSchema } from '../../llm/decoding';
import { SERVER_KINDS } from '../../llm/servers/kinds';
import { duration, nonNegInt, positiveInt, unitInterval } from './primitives';

const LocalLlmSchema = z.strictObject({
  model_path: z.string().min(1).default('models/smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf'),
  threads: positiveInt.default(2),
  context_size: positiveInt.default(2048),
  max_tokens: positiveInt.default(256),
  gpu: z.boolean().default(false),
});

const OpenAiLlmSchema = z.strictObject({
  base_url: z.string().url().default('http://127.0.0.1:8000/v1'),
  model: z.string().min(1).default('Qwen/Qwen3-4B-Instruct-2507'),
  /** Name of the environment variable that holds the API key (the key itself never goes in a config). */
  api_key_env: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name')
    .default('OPENAI_API_KEY'),
  /**
   * Most requests in flight to this endpoint from one worker process. With `adaptive_concurrency` the ceiling
   * of the limit the worker finds itself (src/llm/adaptive-limit.ts), shared by all its shards and arms on the
   * endpoint; without it, a fixed number per backend.
   */
  concurrency: positiveInt.default(256),
  /** Find the endpoint's knee (requests in flight beyond which it only gets slower) instead of a fixed cap. */
  adaptive_concurrency: z.boolean().default(true),
  timeout_s: z.number().positive().default(120),
  max_tokens: positiveInt.default(512),
  max_retries: nonNegInt.default(4),
  /**
   * The server behind `base_url`, which decides how structured output, reasoning and OpenAI's reasoning models'
   * keys are sent (docs/prompts.md#servers). Absent or `auto`: infer asks the server once and records the answer.
   */
  server: z.enum([...SERVER_KINDS, 'auto']).optional(),
});

/** Price of the endpoint per 1M tokens (any currency, the same for both), for the cost per arm in summaries and reports. */
const PriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** The share taken off both prices for requests answered through a Batch API (OpenAI's: 0.5; docs/batch.md). */
  batch_discount: unitInterval.optional(),
});

/** Batch files (`phase5 infer --batch-out`, `infer.backend: openai_batch`; docs/batch.md). */
const BatchSchema = z.strictObject({
  /** Most request lines in one file (OpenAI's Batch API: 50,000). */
  max_lines: positiveInt.default(50_000),
  /** Most bytes in one file (OpenAI's Batch API: 200 MB). */
  max_bytes: positiveInt.default(200_000_000),
  /** `openai_batch`: seconds between two looks at a batch's status. */
  poll_s: z.number().positive().default(30),
  /** `openai_batch`: the batch's completion window (OpenAI takes "24h"). */
  completion_window: z.string().min(1).default('24h'),
});

export const InferSchema = z.strictObject({
  /** `openai_batch`: the `openai` endpoint's Files and Batches API instead of its chat completions (docs/batch.md). */
  backend: z.enum(['local', 'openai', 'openai_batch']).default('local'),
  temperature: z.number().min(0).max(2).default(0),
  /** The study's default decoding (docs/prompts.md#decoding); an arm's `decoding` overrides it key by key. */
  decoding: DecodingSchema.optional(),
  local: LocalLlmSchema.prefault({}),
  openai: OpenAiLlmSchema.prefault({}),
  /** Without `study:`, the default arms infer produces: `rag` and/or the zero-shot baseline `zero_shot`. */
  arms: z
    .array(z.enum(['rag', 'zero_shot']))
    .min(1)
    .default(['rag', 'zero_shot']),
  /**
   * An arm with more failed records than this share of its lines fails the stage (non-retryable), and the
   * analysis marks its comparisons not valid: failed lines are scored as the raw OCR, which would bias ΔCER.
   */
  max_failed_share: unitInterval.default(0.01),
  /**
   * How long the LLM endpoint may stay unreachable (no line finishing across retried attempts) before the
   * infer stage gives up for good. Until then an outage fails the activity retryably and Temporal retries it.
   */
  outage_budget: duration.default('30m'),
  /** Lines per infer shard: every arm × dataset is split into shards, one activity each, on every GPU worker. */
  shard_size: positiveInt.default(256),
  /**
   * Shards one run of an arm's workflow executes before it continues as new, so no history nears Temporal's
   * limits (each shard adds ~6 events and its input, with the config, ~4 KB).
   */
  shards_per_run: positiveInt.default(1000),
  price: PriceSchema.optional(),
  batch: BatchSchema.optional(),
});
