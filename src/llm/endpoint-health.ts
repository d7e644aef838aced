/**
 * A worker's own LLM endpoint, up or down: a worker that runs with a worker-local base URL
 * (`phase5 worker --openai-base-url`, src/llm/endpoint.ts) stops taking GPU-queue tasks while its box's
 * server is down, instead of failing every shard it is handed within milliseconds (and, always idle, winning
 * most of them from the healthy workers).
 *
 *   const gate = new EndpointHealthGate({ baseUrl });      // starts up: nothing is known to be wrong
 *   gate.markDown('connection refused');                   // the infer activity saw an outage
 *   await gate.waitUntilUp(signal);                        // probes GET <baseUrl>/models, 1 s → 15 s apart
 *   const slots = new GatedSlots(2, gate);                 // the worker's activity slots, held shut while down
 *
 * Probing runs only while someone waits (a worker's pending slot reservations): when every waiter has aborted
 * (the worker shuts down) the probe stops too. Any HTTP answer below 500 counts as up (a 401 of a server with
 * `--api-key` included: the probe sends no key); 5xx (llama.cpp's 503 while loading a model), a refused
 * connection or no answer within the probe timeout count as down. No Temporal here: bin/cli/worker-runtime.ts
 * adapts `GatedSlots` to the SDK's custom slot supplier.
 */

export type Probe = (signal: AbortSignal) => Promise<boolean>;

export interface EndpointHealthOptions {
  /** The worker's OpenAI-compatible base URL (`…/v1`); the default probe asks `<baseUrl>/models`. */
  baseUrl: string;
  /** Wait before the first probe after going down; doubles after each failed probe … */
  minDelayMs?: number;
  /** … up to this. */
  maxDelayMs?: number;
  /** A probe without an answer within this counts as down. */
  probeTimeoutMs?: number;
  /** Replaces the HTTP probe (tests). */
  probe?: Probe;
  /** Called once when the endpoint goes down (up → down). */
  onPause?: (reason: string) => void;
  /** Called once when a probe finds it up again, with how long it was down and how many probes that took. */
  onResume?: (downMs: number, probes: number) => void;
}

/** Rejects with the signal's reason: what the Temporal SDK expects from an aborted slot reservation. */
function abortable<T>(signal: AbortSignal, register: (resolve: (v: T) => void) => () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      unregister();
      reject(signal.reason);
    };
    const unregister = register((v) => {
      signal.removeEventListener('abort', onAbort);
      resolve(v);
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return abortable<void>(signal, (resolve) => {
    const t = setTimeout(() => resolve(), ms);
    return () => clearTimeout(t);
  });
}

/** `<baseUrl>/models` (query kept, credentials moved to a Basic header: fetch refuses URLs that carry them). */
export function modelsUrl(baseUrl: string): { url: string; headers: Record<string, string> } {
  const u = new URL(baseUrl);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/models`;
  const headers: Record<string, string> = {};
  if (u.username || u.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  return { url: u.toString(), headers };
}

/** GET `<baseUrl>/models`: up when the server answers with a status below 500. */
export function httpProbe(baseUrl: string, timeoutMs = 5000): Probe {
  const { url, headers } = modelsUrl(baseUrl);
  return async (signal) => {
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
      await res.body?.cancel().catch(() => undefined);
      return res.status < 500;
    } catch {
      return false;
    }
  };
}

export class EndpointHealthGate {
  private down: { since: number; reason: string } | null = null;
  private readonly waiters = new Set<() => void>();
  private probing: AbortController | null = null;
  private readonly probe: Probe;
  private readonly minDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: EndpointHealthOptions) {
    this.probe = opts.probe ?? httpProbe(opts.baseUrl, opts.probeTimeoutMs);
    this.minDelayMs = opts.minDelayMs ?? 1000;
    this.maxDelayMs = opts.maxDelayMs ?? 15_000;
  }

  get isUp(): boolean {
    return this.down === null;
  }

  /** The endpoint failed to serve (an outage, not a bad prompt). Repeated calls while down change nothing. */
  markDown(reason: string): void {
    if (this.down) return;
    this.down = { since: Date.now(), reason };
    this.opts.onPause?.(reason);
    if (this.waiters.size > 0) this.startProbing();
  }

  /** Resolves at once when up; otherwise when a probe finds the endpoint up. Rejects with `signal.reason` on abort. */
  waitUntilUp(signal: AbortSignal): Promise<void> {
    if (this.isUp) return Promise.resolve();
    if (signal.aborted) return Promise.reject(signal.reason);
    const wait = abortable<void>(signal, (resolve) => {
      this.waiters.add(resolve);
      return () => {
        this.waiters.delete(resolve);
        if (this.waiters.size === 0) this.stopProbing();
      };
    });
    this.startProbing();
    return wait;
  }

  private startProbing(): void {
    if (this.probing || this.isUp || this.waiters.size === 0) return;
    const ctl = new AbortController();
    this.probing = ctl;
    void this.probeLoop(ctl).finally(() => {
      if (this.probing === ctl) this.probing = null;
    });
  }

  private stopProbing(): void {
    this.probing?.abort(new Error('no one waits for the endpoint'));
    this.probing = null;
  }

  private async probeLoop(ctl: AbortController): Promise<void> {
    let delay = this.minDelayMs;
    for (let probes = 1; !ctl.signal.aborted && this.down; probes++) {
      try {
        await sleep(delay, ctl.signal);
      } catch {
        return;
      }
      if (await this.probe(ctl.signal)) {
        if (ctl.signal.aborted || !this.down) return;
        this.markUp(probes);
        return;
      }
      delay = Math.min(delay * 2, this.maxDelayMs);
    }
  }

  private markUp(probes: number): void {
    const since = this.down?.since ?? Date.now();
    this.down = null;
    this.opts.onResume?.(Date.now() - since, probes);
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const resolve of waiting) resolve();
  }
}

/**
 * `size` slots that are handed out only while the gate is up (a worker's activity slots): `reserve` waits for
 * the endpoint and a free slot, `tryReserve` never waits (the SDK's eager tasks), `release` frees one.
 */
export class GatedSlots {
  private used = 0;
  private freed = new Set<() => void>();

  constructor(
    readonly size: number,
    private readonly gate: Pick<EndpointHealthGate, 'isUp' | 'waitUntilUp'>,
  ) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`GatedSlots: size must be an integer >= 1, got ${size}`);
  }

  get inUse(): number {
    return this.used;
  }

  tryReserve(): boolean {
    if (!this.gate.isUp || this.used >= this.size) return false;
    this.used++;
    return true;
  }

  async reserve(signal: AbortSignal): Promise<void> {
    for (;;) {
      await this.gate.waitUntilUp(signal);
      if (this.tryReserve()) return;
      await abortable<void>(signal, (resolve) => {
        this.freed.add(resolve);
        return () => this.freed.delete(resolve);
      });
    }
  }

  release(): void {
    this.used = Math.max(0, this.used - 1);
    // Every waiter tries again (at most a handful: the worker's pollers); one of them gets the slot.
    const waiting = [...this.freed];
    this.freed.clear();
    for (const resolve of waiting) resolve();
  }
}
