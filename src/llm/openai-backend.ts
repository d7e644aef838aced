/**
 * OpenAI-compatible chat-completions backend (vLLM, llama.cpp server, Ollama, OpenRouter, OpenAI).
 *
 * Uses the `openai` SDK for the protocol (request shape, auth header, typed errors, timeouts) with its own
 * retries disabled (`maxRetries: 0`): the loop here retries instead, so each failure is classified and
 * recorded with its reason, HTTP status, message and attempt count, and so Retry-After and jitter follow
 * one documented policy. The API key is read from an environment variable named in the options and is
 * redacted from every message this module produces.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { childLogger } from '../util/log';
import { missingKeyError } from '../util/worker-setup-error';
import { readCompletion } from './completion';
import { backendDecoding, type ResolvedDecoding } from './decoding';
import { EndpointChecks } from './endpoint-checks';
import { errorBodyFetch } from './error-body';
import { endpointLimiter, type EndpointLimiter } from './endpoint-limiter';
import { chatRequestBody } from './request-body';
import { UNKNOWN_SERVER, type ServerInfo } from './servers/kinds';
import { Semaphore } from './pool';
import { FailureTrail, noteServed } from './repeated-failure';
import { AbortedError, DEFAULT_RETRY_POLICY, backoffDelay, classifyStatus, parseRetryAfter, sleep, type RetryPolicy } from './retry';
import {
  isOutage,
  LlmError,
  type ChatMessage,
  type CompletionOptions,
  type EndpointLoad,
  type CompletionResult,
  type LlmBackend,
} from './types';

/**
 * A URL safe to log or put in a failure message: credentials (`user:key@`) and query values (`?api-key=…`) are
 * replaced by `***`. Text that is not a URL is returned as it is.
 */
export function redactedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.username || u.password) {
    u.username = '***';
    u.password = '';
  }
  for (const key of [...u.searchParams.keys()]) u.searchParams.set(key, '***');
  return u.toString().replace(/%2A%2A%2A/g, '***');
}

export interface OpenAiBackendOptions {
  /** e.g. `http://127.0.0.1:8000/v1` (vLLM), `http://127.0.0.1:11434/v1` (Ollama), `https://openrouter.ai/api/v1`. */
  baseUrl: string;
  model: string;
  /** Name of the environment variable holding the API key (the key itself never goes in config or logs). */
  apiKeyEnv?: string;
  /** Default 0 (deterministic correction). */
  temperature?: number;
  /** Default 512. */
  maxTokens?: number;
  /**
   * Most requests in flight (default 4). With `adaptive` (the default) the ceiling of the endpoint's adaptive
   * limit, shared by every backend of this process on the same base URL; without it, a fixed cap of this backend.
   */
  concurrency?: number;
  /** Find the endpoint's knee with an adaptive limit (./adaptive-limit; default true). */
  adaptive?: boolean;
  /** The limiter to use instead of the process's one for this endpoint (tests). */
  limiter?: EndpointLimiter;
  /** Per-attempt timeout in ms (default 120 000). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Extra request-body fields, e.g. `{ chat_template_kwargs: { enable_thinking: false } }` (merged under `decoding.extra_body`). */
  extraBody?: Record<string, unknown>;
  /** The request's decoding (./decoding); absent = `temperature` and `maxTokens` above, nothing else sent. */
  decoding?: ResolvedDecoding;
  /**
   * The server the requests are shaped for (./request-body.ts; ./servers/detect.ts finds it for
   * `infer.openai.server: auto`). Absent: an unidentified server, which gets the portable body.
   */
  server?: ServerInfo;
  /** Extra headers (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /** Environment to read `apiKeyEnv` from (default `process.env`; tests pass their own). */
  env?: Record<string, string | undefined>;
  /** Randomness for the backoff jitter (tests make it deterministic). */
  random?: () => number;
}

const log = childLogger('llm-http');

export class OpenAiCompatibleBackend implements LlmBackend {
  readonly id: string;
  readonly model: string;
  readonly concurrency: number;
  private readonly client: OpenAI;
  private readonly apiKey: string | null;
  private readonly policy: RetryPolicy;
  private readonly decoding: ResolvedDecoding;
  private readonly timeoutMs: number;
  private readonly slots: Semaphore | null;
  private readonly limiter: EndpointLimiter | null;
  private readonly checks: EndpointChecks;

  constructor(private readonly opts: OpenAiBackendOptions) {
    if (!opts.baseUrl) throw new Error('openai backend: "baseUrl" is required');
    if (!opts.model) throw new Error('openai backend: "model" is required');
    const env = opts.env ?? process.env;
    if (opts.apiKeyEnv) {
      const key = env[opts.apiKeyEnv];
      if (!key) throw missingKeyError(opts.apiKeyEnv);
      this.apiKey = key;
    } else {
      this.apiKey = null;
    }
    this.model = opts.model;
    this.id = `openai:${redactedUrl(opts.baseUrl)}`; // the id reaches logs and failure messages (workflow history)
    this.checks = new EndpointChecks({ baseUrl: opts.baseUrl, where: redactedUrl(opts.baseUrl), model: opts.model, apiKey: this.apiKey });
    this.concurrency = opts.concurrency ?? 4;
    if (!(Number.isInteger(this.concurrency) && this.concurrency >= 1))
      throw new Error(`openai backend: concurrency must be an integer >= 1, got ${opts.concurrency}`);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.decoding = backendDecoding(opts);
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    const adaptive = opts.adaptive ?? true;
    this.limiter = adaptive ? (opts.limiter ?? endpointLimiter(opts.baseUrl, this.concurrency)) : null;
    this.slots = adaptive ? null : new Semaphore(this.concurrency);
    this.client = new OpenAI({
      baseURL: opts.baseUrl,
      // Local servers (vLLM without --api-key, Ollama, llama.cpp) accept any bearer token; the SDK needs one.
      apiKey: this.apiKey ?? 'no-key',
      maxRetries: 0,
      timeout: this.timeoutMs,
      defaultHeaders: opts.headers,
      fetch: errorBodyFetch(), // SGLang's flat error bodies read as their message (./error-body.ts)
    });
  }

  /** Replace the API key (and any bearer token) in a message. */
  redact(text: string): string {
    let out = text.replace(/(Bearer\s+)[^\s"',]+/gi, '$1[REDACTED]');
    if (this.apiKey && this.apiKey.length >= 4) out = out.split(this.apiKey).join('[REDACTED]');
    return out;
  }

  async complete(messages: ChatMessage[], opts: CompletionOptions = {}): Promise<CompletionResult> {
    if (!this.slots) return this.completeWithRetries(messages, opts);
    const release = await this.slots.acquire();
    try {
      return await this.completeWithRetries(messages, opts);
    } finally {
      release();
    }
  }

  /** Before the first correction: the endpoint serves this model (./endpoint-checks.ts); learns its context length. */
  preflight(signal?: AbortSignal): Promise<void> {
    return this.checks.preflight(signal);
  }

  /** The endpoint's load (adaptive limit only): requests in flight, limit, median latency. */
  load(): EndpointLoad | null {
    return this.limiter?.load() ?? null;
  }

  /** With the adaptive limit, a slot per attempt (a retry's backoff holds none); else the fixed cap is held already. */
  private async attemptSlot(attempts: number, signal?: AbortSignal): Promise<{ done(kind: 'ok' | 'overload' | 'ignore'): void }> {
    if (!this.limiter) return { done: () => undefined };
    try {
      return await this.limiter.acquire(signal);
    } catch (e) {
      if (e instanceof AbortedError) throw new LlmError('aborted', 'aborted while waiting for a request slot', null, attempts);
      throw e;
    }
  }

  private async completeWithRetries(messages: ChatMessage[], opts: CompletionOptions): Promise<CompletionResult> {
    const body: Record<string, unknown> = chatRequestBody(this.model, messages, this.decoding, this.opts.server ?? UNKNOWN_SERVER, {
      maxTokens: opts.maxTokens,
    });
    const budget = body.max_tokens ?? body.max_completion_tokens;
    const tooLong = await this.checks.tooLong(messages, typeof budget === 'number' ? budget : 0);
    if (tooLong) throw tooLong;
    let attempts = 0;
    const trail = new FailureTrail(this.opts.baseUrl);
    let transientRetries = 0;
    let invalidRetries = 0;
    for (;;) {
      attempts++;
      const slot = await this.attemptSlot(attempts, opts.signal);
      const started = performance.now();
      let failure: { err: LlmError; retryable: boolean; retryAfterMs: number | null; invalid: boolean };
      // A per-attempt signal linked to the caller's: the SDK adds an abort listener to the signal it gets and
      // never removes it, so passing a long-lived signal (the runner's) would leak one listener per request.
      const attemptAbort = new AbortController();
      const forward = () => attemptAbort.abort();
      if (opts.signal?.aborted) attemptAbort.abort();
      opts.signal?.addEventListener('abort', forward, { once: true });
      try {
        const completion = (await this.client.chat.completions.create(
          body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
          {
            signal: attemptAbort.signal,
          },
        )) as unknown;
        const latencyMs = performance.now() - started;
        const parsed = readCompletion(completion, attempts);
        if (parsed instanceof LlmError) {
          failure = {
            err: new LlmError(parsed.reason, this.redact(parsed.message), parsed.status, attempts),
            retryable: true,
            retryAfterMs: null,
            invalid: true,
          };
        } else {
          slot.done('ok');
          noteServed(this.opts.baseUrl);
          return { ...parsed, latencyMs: Math.round(latencyMs), attempts };
        }
      } catch (err) {
        failure = this.classify(err, attempts, opts.signal);
      } finally {
        opts.signal?.removeEventListener('abort', forward);
      }
      // The endpoint not serving (429, 5xx, timeout, refused) says the load is too high; a bad answer says nothing.
      slot.done(!failure.invalid && isOutage(failure.err.reason) ? 'overload' : 'ignore');
      const { err } = failure;
      trail.failed(err);
      const budgetLeft = failure.invalid ? invalidRetries < this.policy.invalidRetries : transientRetries < this.policy.maxRetries;
      if (!failure.retryable || !budgetLeft) throw trail.final(err);
      if (failure.invalid) invalidRetries++;
      else transientRetries++;
      const retryNo = transientRetries + invalidRetries;
      const backoff = backoffDelay(retryNo, this.policy, this.opts.random);
      // Honour the server's Retry-After (capped), never waiting less than it asks.
      const wait = failure.retryAfterMs !== null ? Math.min(this.policy.maxRetryAfterMs, Math.max(failure.retryAfterMs, 0)) : backoff;
      log.debug({ reason: err.reason, status: err.status, attempt: attempts, waitMs: wait }, `retrying after ${err.reason}`);
      try {
        await sleep(wait, opts.signal);
      } catch (e) {
        if (e instanceof AbortedError)
          throw new LlmError('aborted', `aborted while waiting to retry (last failure: ${err.message})`, err.status, attempts);
        throw e;
      }
    }
  }

  private classify(
    err: unknown,
    attempts: number,
    signal?: AbortSignal,
  ): { err: LlmError; retryable: boolean; retryAfterMs: number | null; invalid: boolean } {
    const mk = (
      reason: LlmError['reason'],
      message: string,
      status: number | null,
      retryable: boolean,
      retryAfterMs: number | null = null,
      invalid = false,
    ) => ({
      err: new LlmError(reason, this.redact(message), status, attempts),
      retryable,
      retryAfterMs,
      invalid,
    });
    if (err instanceof APIUserAbortError || signal?.aborted) return mk('aborted', 'request aborted by the caller', null, false);
    if (err instanceof APIConnectionTimeoutError) return mk('timeout', `no response within ${this.timeoutMs} ms`, null, true);
    if (err instanceof APIConnectionError) {
      const cause = (err as { cause?: { message?: string; code?: string; cause?: { code?: string } } }).cause;
      const code = cause?.code ?? cause?.cause?.code;
      return mk('connection', `connection error${code ? ` (${code})` : ''}: ${cause?.message ?? err.message}`, null, true);
    }
    if (err instanceof APIError && typeof err.status === 'number') {
      const { reason, retryable } = classifyStatus(err.status);
      return mk(reason, `HTTP ${err.status}: ${err.message.replace(/^\d{3}\s+/, '')}`, err.status, retryable, parseRetryAfter(err.headers));
    }
    // The SDK parses JSON bodies itself, so a malformed body surfaces as a SyntaxError.
    if (err instanceof SyntaxError) return mk('invalid_response', `invalid JSON in response: ${err.message}`, 200, true, null, true);
    return mk('unexpected', err instanceof Error ? `${err.name}: ${err.message}` : String(err), null, false);
  }

  async close(): Promise<void> {
    // The SDK holds no resources beyond fetch's shared keep-alive pool.
  }
}
