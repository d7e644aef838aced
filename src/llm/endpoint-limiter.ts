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
  private readonly waiting: { admit: () => void; signal?: AbortSignal; onAbort?: () => void }[] = [];
  private area = 0;
  private lastChange: number;

  constructor(opts: AdaptiveLimitOptions, private readonly now: () => number = () => performance.now()) {
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
      const entry: (typeof this.waiting)[number] = { admit: () => resolve(this.admit()), signal };
      entry.onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  load(): EndpointLoad {
    this.account();
    const c = this.control;
    return { inFlight: this.inFlight, queued: this.waiting.length, limit: c.limit, medianLatencyMs: c.medianMs, noLoadLatencyMs: c.noLoadMs, inFlightMs: this.area, atMs: this.lastChange };
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
      if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
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
