/**
 * One adaptive concurrency limiter per LLM endpoint per process: every backend, shard and arm of a worker that
 * talks to the same base URL with the same maximum shares it, so the worker as a whole finds the endpoint's
 * knee (./adaptive-limit) instead of each shard guessing its share. Requests over the limit wait in FIFO order,
 * so the lines of the shard that started first are answered first and its activity finishes first.
 */
import { AdaptiveLimit, type AdaptiveLimitOptions, type LimitOutcome } from './adaptive-limit';
import { AbortedError } from './retry';
import type { EndpointLoad } from './types';

export type { EndpointLoad };

/** A slot for one request: `done` (once) tells the controller how it went and frees the slot. */
export interface Permit {
  done(outcome: 'ok' | 'overload' | 'ignore'): void;
}

export class EndpointLimiter {
  private readonly control: AdaptiveLimit;
  private inFlight = 0;
  private readonly waiting: { admit: () => void; reject: (e: Error) => void; signal?: AbortSignal }[] = [];
  private readonly watched = new Map<AbortSignal, { waiters: number; onAbort: () => void }>();
  private area = 0;
  private lastChange: number;

  constructor(
    opts: AdaptiveLimitOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.control = new AdaptiveLimit(opts);
    this.lastChange = now();
  }

  get limit(): number {
    return this.control.limit;
  }

  /** Wait for a slot (FIFO); rejects with AbortedError when `signal` fires first. */
  acquire(signal?: AbortSignal): Promise<Permit> {
    if (signal?.aborted) return Promise.reject(new AbortedError());
    if (this.waiting.length === 0 && this.inFlight < this.control.limit) return Promise.resolve(this.admit());
    return new Promise<Permit>((resolve, reject) => {
      this.waiting.push({ admit: () => resolve(this.admit()), reject, signal });
      if (signal) this.watch(signal);
    });
  }

  /** One abort listener per caller signal, however many of its requests wait (a shard's runner has hundreds). */
  private watch(signal: AbortSignal): void {
    const w = this.watched.get(signal);
    if (w) return void w.waiters++;
    const onAbort = () => {
      this.watched.delete(signal);
      for (let i = this.waiting.length - 1; i >= 0; i--) {
        if (this.waiting[i].signal === signal) this.waiting.splice(i, 1)[0].reject(new AbortedError());
      }
    };
    this.watched.set(signal, { waiters: 1, onAbort });
    signal.addEventListener('abort', onAbort, { once: true });
  }

  private unwatch(signal: AbortSignal | undefined): void {
    const w = signal && this.watched.get(signal);
    if (!w || --w.waiters > 0) return;
    this.watched.delete(signal as AbortSignal);
    (signal as AbortSignal).removeEventListener('abort', w.onAbort);
  }

  load(): EndpointLoad {
    this.account();
    const c = this.control;
    return {
      inFlight: this.inFlight,
      queued: this.waiting.length,
      limit: c.limit,
      medianLatencyMs: c.medianMs,
      noLoadLatencyMs: c.noLoadMs,
      inFlightMs: this.area,
      atMs: this.lastChange,
    };
  }

  private account(): void {
    const t = this.now();
    this.area += this.inFlight * (t - this.lastChange);
    this.lastChange = t;
  }

  private admit(): Permit {
    this.account();
    this.inFlight++;
    this.control.admitted(this.inFlight);
    const epoch = this.control.epoch;
    const started = this.now();
    let ended = false;
    return {
      done: (kind) => {
        if (ended) return;
        ended = true;
        this.account();
        this.inFlight--;
        const outcome: LimitOutcome = kind === 'ok' ? { kind, latencyMs: this.now() - started } : { kind };
        this.control.ended(epoch, outcome);
        this.drain();
      },
    };
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.inFlight < this.control.limit) {
      const next = this.waiting.shift() as (typeof this.waiting)[number];
      this.unwatch(next.signal);
      next.admit();
    }
  }
}

const limiters = new Map<string, EndpointLimiter>();

/** This process's limiter for `baseUrl` with ceiling `max` (one per pair: arms with another maximum get their own). */
export function endpointLimiter(baseUrl: string, max: number): EndpointLimiter {
  const key = `${max} ${baseUrl}`;
  let l = limiters.get(key);
  if (!l) limiters.set(key, (l = new EndpointLimiter({ max })));
  return l;
}
