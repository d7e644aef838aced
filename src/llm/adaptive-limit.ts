/**
 * The adaptive concurrency limit of one LLM endpoint: how many requests to keep in flight so that a server with
 * continuous batching (vLLM, SGLang, llama.cpp with parallel slots) runs at its peak without queueing. Such a
 * server answers in about the same time whatever the load up to a knee (its batch fills), then only slower:
 * latency grows with the requests beyond the knee while throughput stays flat. The controller follows the
 * gradient controllers of Netflix's concurrency-limits and Envoy's adaptive concurrency filter
 * (docs/adaptive-concurrency.md): it compares each window's median latency with the no-load latency and
 *
 *  - multiplies the limit by 4 per window while the latency stays near the no-load latency and the limit was used
 *    (slow start; by 2 within `tolerance` × it), then grows it by √limit / 2 per window (by half while the
 *    latency is still at the no-load level: room freed by another worker is taken back within a few windows);
 *  - scales it down by `tolerance × no-load / window median` (at most to a quarter) once the latency rises past
 *    that, i.e. to about the knee × `tolerance` on a queueing server — the first cut after a good window not
 *    below 0.9 × the last limit that kept the latency in bounds, so one slow window (a stalled client, a
 *    server hiccup) does not drop the limit under the knee; a second slow window in a row cuts freely;
 *  - halves it on an overload answer (429, 5xx, timeout, refused connection), once per window;
 *  - runs one window at a small limit to measure the no-load latency afresh when slow start ends (the windows
 *    before may all have been past the knee) and then every `probeEvery` windows, so a server that became
 *    slower for good (longer prompts, another tenant) does not push the limit to its floor (the estimate
 *    falls at once and rises by at most a quarter per probe, so one stalled probe does not lift the bound).
 *
 * A window is the first max(4, limit/4) answers to requests admitted under the current limit, so each decision
 * sees the latency its own limit causes. Never above `max` (`infer.openai.concurrency`), never below `min`.
 * Plain state, no timers: the limiter (./endpoint-limiter) feeds it admissions and outcomes.
 */
export interface AdaptiveLimitOptions {
  /** Hard ceiling (`infer.openai.concurrency`). */
  max: number;
  /** Floor (default min(max, 4): below it a window would need several round trips, so recovery would be slow). */
  min?: number;
  /** Start (default min(max, 4)): low, so the first window measures the no-load latency. */
  initial?: number;
  /** Latency allowed over the no-load latency before the limit comes down (default 1.5). */
  tolerance?: number;
  /** Factor applied on an overload answer (default 0.5). */
  backoff?: number;
  /** Windows between two no-load latency probes (default 40; 0 = never). */
  probeEvery?: number;
}

/** How a request ended, for the controller: answered (with its latency), overload, or says nothing about load. */
export type LimitOutcome = { kind: 'ok'; latencyMs: number } | { kind: 'overload' } | { kind: 'ignore' };

const MIN_WINDOW = 4;
/** A window median within this factor of the no-load latency: no queueing at all yet. */
const SAME_LATENCY = 1.1;

export class AdaptiveLimit {
  readonly max: number;
  readonly min: number;
  private readonly tolerance: number;
  private readonly backoff: number;
  private readonly probeEvery: number;
  private value: number;
  private slowStart = true;
  private generation = 0;
  private samples: number[] = [];
  private peakInFlight = 0;
  private windows = 0;
  private probeRestore: number | null = null;
  /** The last limit whose window stayed within the latency bound, and whether the last window did. */
  private lastGood: number | null = null;
  private lastWindowGood = true;
  /** No-load latency estimate (ms): the lowest window median; each probe's median replaces it (rising ≤ 25 %). */
  noLoadMs: number | null = null;
  /** The last window's median latency (ms). */
  medianMs: number | null = null;

  constructor(opts: AdaptiveLimitOptions) {
    const int = (v: number, name: string) => {
      if (!(Number.isInteger(v) && v >= 1)) throw new RangeError(`adaptive limit: ${name} must be an integer >= 1, got ${v}`);
      return v;
    };
    this.max = int(opts.max, 'max');
    this.min = Math.min(this.max, int(opts.min ?? 4, 'min'));
    this.value = Math.min(this.max, Math.max(this.min, int(opts.initial ?? Math.min(this.max, 4), 'initial')));
    this.tolerance = opts.tolerance ?? 1.5;
    if (!(this.tolerance > 1)) throw new RangeError(`adaptive limit: tolerance must be > 1, got ${opts.tolerance}`);
    this.backoff = opts.backoff ?? 0.5;
    this.probeEvery = opts.probeEvery ?? 40;
  }

  /** Requests that may be in flight now. */
  get limit(): number {
    return Math.max(this.min, Math.min(this.max, Math.floor(this.value)));
  }

  /** Changes with every decision; a request carries the generation it was admitted in. */
  get epoch(): number {
    return this.generation;
  }

  /** A request was admitted; `inFlight` counts it. */
  admitted(inFlight: number): void {
    this.peakInFlight = Math.max(this.peakInFlight, inFlight);
  }

  /** A request admitted in generation `epoch` ended. */
  ended(epoch: number, outcome: LimitOutcome): void {
    if (outcome.kind === 'ignore' || epoch !== this.generation) return;
    if (outcome.kind === 'overload') {
      this.slowStart = false;
      this.probeRestore = null;
      this.lastWindowGood = false;
      this.decide(this.value * this.backoff);
      return;
    }
    this.samples.push(outcome.latencyMs);
    if (this.samples.length < Math.max(MIN_WINDOW, Math.ceil(this.limit / 4))) return;
    this.closeWindow(median(this.samples));
  }

  private closeWindow(rtt: number): void {
    this.medianMs = rtt;
    if (this.probeRestore !== null) {
      // Lower at once; higher by at most a quarter per probe, so one stalled probe window cannot lift the bound.
      this.noLoadMs = Math.min(rtt, (this.noLoadMs ?? rtt) * 1.25);
      const restore = this.probeRestore;
      this.probeRestore = null;
      this.decide(restore);
      return;
    }
    this.noLoadMs = this.noLoadMs === null ? rtt : Math.min(this.noLoadMs, rtt);
    this.windows++;
    const used = this.peakInFlight >= Math.max(1, Math.floor(this.limit * 0.9));
    const threshold = this.tolerance * this.noLoadMs;
    let next = this.value;
    const endsSlowStart = this.slowStart && rtt > threshold;
    if (rtt > threshold) {
      this.slowStart = false;
      next = this.value * Math.max(0.25, threshold / rtt);
      if (this.lastWindowGood && this.lastGood !== null) next = Math.max(next, 0.9 * Math.min(this.lastGood, this.value));
    } else if (used && this.slowStart) {
      next = this.value * (rtt <= SAME_LATENCY * this.noLoadMs ? 4 : 2);
    } else if (used) {
      // At the no-load latency the box has room (another worker left, a probe ended): grow fast; else gently.
      next = rtt <= SAME_LATENCY * this.noLoadMs ? this.value * 1.5 : this.value + Math.sqrt(this.value) / 2;
    }
    this.lastWindowGood = rtt <= threshold;
    if (this.lastWindowGood) this.lastGood = this.value;
    if (endsSlowStart || (this.probeEvery > 0 && !this.slowStart && this.windows % this.probeEvery === 0)) {
      this.probeRestore = this.clamp(next);
      next = next / (2 * this.tolerance);
    }
    this.decide(next);
  }

  private clamp(v: number): number {
    return Math.max(this.min, Math.min(this.max, v));
  }

  private decide(next: number): void {
    this.value = this.clamp(next);
    this.generation++;
    this.samples = [];
    this.peakInFlight = 0;
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
