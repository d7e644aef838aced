import type { ChatMessage } from '../prompts/builder';

export type { ChatMessage };

export interface CompletionOptions {
  /** Overrides the backend's default max tokens for this call. */
  maxTokens?: number;
  /** Cancels the call (and any pending retry wait). */
  signal?: AbortSignal;
}

export interface CompletionResult {
  /** The model's text exactly as returned (clean it with `cleanOutput`). */
  text: string;
  /** From the server's `usage` (HTTP) or the tokenizer (local); null when the server does not report it. */
  promptTokens: number | null;
  completionTokens: number | null;
  /** Duration of the successful attempt in ms. */
  latencyMs: number;
  /** Attempts made, 1 when the first one succeeded. */
  attempts: number;
  /** Local backend only: ms until the first generated token (≈ prompt evaluation time). */
  firstTokenMs?: number;
  /**
   * What the server says about the answer (docs/outputs.md#correctionsjsonl): the model that served it (the
   * response's `model`), its `system_fingerprint`, why generation stopped (`stop`, `length`, …) and the
   * reasoning trace a reasoning parser split off (`reasoning_content`). null: the server did not say;
   * absent: the backend does not report it at all.
   */
  servedModel?: string | null;
  systemFingerprint?: string | null;
  finishReason?: string | null;
  reasoning?: string | null;
}

/** Two implementations: `OpenAiCompatibleBackend` (HTTP) and `LlamaCppBackend` (local GGUF). */
export interface LlmBackend {
  /** e.g. `openai:http://127.0.0.1:8000/v1` or `llama.cpp:models/x.gguf`. */
  readonly id: string;
  /** Model name recorded in corrections.jsonl. */
  readonly model: string;
  /** Parallel requests this backend is set up for (the runner's default concurrency). */
  readonly concurrency: number;
  complete(messages: ChatMessage[], opts?: CompletionOptions): Promise<CompletionResult>;
  close(): Promise<void>;
  /** The endpoint's load, where the backend adapts its concurrency to it (the HTTP backend); else absent or null. */
  load?(): EndpointLoad | null;
  /**
   * Checks before the first correction (the HTTP backend: the endpoint serves the model, src/llm/endpoint-checks.ts);
   * throws a one-line error when it cannot serve. Absent: nothing to check.
   */
  preflight?(signal?: AbortSignal): Promise<void>;
}

/** An endpoint's load as status lines show it; `inFlightMs` integrates requests in flight over time. */
export interface EndpointLoad {
  inFlight: number;
  queued: number;
  limit: number;
  /** Median latency of the last window of answers, and the no-load latency the limit is steered against (ms). */
  medianLatencyMs: number | null;
  noLoadLatencyMs: number | null;
  /** ∫ requests in flight dt (request·ms) up to `atMs`: the mean over a span is Δ inFlightMs / Δ atMs. */
  inFlightMs: number;
  atMs: number;
}

/**
 * Why a call failed, as recorded in corrections.jsonl `error.reason`:
 * - `rate_limited` (HTTP 429), `server_error` (5xx, 408, 409, 425) — retried;
 * - `timeout`, `connection` (refused/reset/DNS) — retried;
 * - `invalid_response` (not JSON / no choices), `empty_content` — retried a couple of times;
 * - `client_error` (other 4xx) — not retried;
 * - `truncated` (`finish_reason: length`: the answer hit max_tokens), `invalid_json` (a JSON `response_format`
 *   answer that does not parse or lacks its field) — not retried: the same prompt gives the same answer;
 * - `request_error`: a 5xx on every attempt of this request while the endpoint served other requests in between
 *   (a grammar the server cannot compile: ./repeated-failure.ts) — the line's failure, not an outage;
 * - `context_length`: prompt tokens + max_tokens over the served model's max_model_len — not sent (./context-limit.ts);
 * - `aborted` (the caller cancelled), `local_error` (node-llama-cpp), `unexpected` (a bug) — not retried.
 *
 * After the backend's own retries, the reasons in `OUTAGE_REASONS` mean "the endpoint is not serving" and are
 * never written as failed records: the runner stops and the infer stage fails retryably (see `isOutage`).
 */
export type FailureReason =
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'connection'
  | 'invalid_response'
  | 'empty_content'
  | 'client_error'
  | 'truncated'
  | 'invalid_json'
  | 'request_error'
  | 'context_length'
  | 'aborted'
  | 'local_error'
  | 'unexpected';

/**
 * Failures that say nothing about the line and everything about the endpoint (down, restarting, overloaded,
 * a proxy answering with an error page): the same prompt will very likely succeed later. `invalid_response`
 * belongs here — a body that is not a chat completion comes from the server or a proxy, not from the prompt.
 * `empty_content` does not: at temperature 0 the model answering nothing is a property of the prompt.
 */
export const OUTAGE_REASONS: ReadonlySet<FailureReason> = new Set<FailureReason>([
  'rate_limited',
  'server_error',
  'timeout',
  'connection',
  'invalid_response',
]);

export function isOutage(reason: FailureReason): boolean {
  return OUTAGE_REASONS.has(reason);
}

/** The `error` object written to corrections.jsonl for a failed sample. */
export interface FailureInfo {
  reason: FailureReason;
  /** HTTP status of the last attempt, when there was one. */
  status: number | null;
  /** Human-readable detail of the last attempt (API keys redacted). */
  message: string;
  attempts: number;
}

export class LlmError extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
    readonly status: number | null = null,
    readonly attempts = 1,
  ) {
    super(message);
    this.name = 'LlmError';
  }

  toInfo(): FailureInfo {
    return { reason: this.reason, status: this.status, message: this.message, attempts: this.attempts };
  }
}
