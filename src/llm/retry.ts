/** Retry policy helpers shared by the HTTP backend: backoff with jitter, Retry-After parsing, abortable sleep. */
import type { FailureReason } from './types';

export interface RetryPolicy {
  /** Retries after the first attempt for transient failures (429, 5xx, timeouts, connection errors). */
  maxRetries: number;
  /** Retries for an invalid or empty response (usually deterministic at temperature 0, so few). */
  invalidRetries: number;
  /** First backoff step; doubles per retry. */
  baseDelayMs: number;
  /** Cap of the exponential backoff. */
  maxDelayMs: number;
  /** Cap on a server's Retry-After (a broken server must not park a worker for an hour). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  invalidRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

/**
 * "Equal jitter" backoff for retry number `retry` (1-based): half of the exponential step plus a random
 * share of the other half, so retries spread out (no thundering herd) but never come back instantly.
 */
export function backoffDelay(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

type HeaderSource = Headers | Record<string, string | string[] | undefined> | null | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Delay requested by the server in ms, from `retry-after-ms` (non-standard, used by OpenAI) or
 * `Retry-After` (seconds or an HTTP date). Null when absent or unparsable.
 */
export function parseRetryAfter(headers: HeaderSource, now: number = Date.now()): number | null {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const ra = header(headers, 'retry-after')?.trim();
  if (!ra) return null;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Failure class of an HTTP status and whether it is worth retrying. */
export function classifyStatus(status: number): { reason: FailureReason; retryable: boolean } {
  if (status === 429) return { reason: 'rate_limited', retryable: true };
  if (status >= 500 || status === 408 || status === 409 || status === 425) return { reason: 'server_error', retryable: true };
  return { reason: 'client_error', retryable: false };
}

export class AbortedError extends Error {
  constructor(message = 'aborted') {
    super(message);
    this.name = 'AbortedError';
  }
}

/** Sleep `ms`, rejecting with AbortedError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new AbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
