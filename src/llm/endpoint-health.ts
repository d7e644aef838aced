/**
 * A worker's own LLM endpoint, up or down: a worker that runs with a worker-local base URL
 * (`phase5 worker --openai-base-url`, src/llm/endpoint.ts) stops taking GPU-queue tasks while its box's
 * server is down, instead of failing every shard it is handed within milliseconds (and, always idle, winning
 * most of them from the healthy workers).
 *
 *   const gate = new EndpointHealthGate({ baseUrl });      // starts up: nothing is known to be wrong
 *   gate.markDown('connection refused');                   // the infer activity saw an outage
 *   await gate.waitUntilUp(signal);                        // probes GET /health (else …/models), 1 s → 15 s apart
 *   const slots = new GatedSlots(2, gate);                 // the worker's activity slots, held shut while down
 *
 * Probing runs only while someone waits (a worker's pending slot reservations): when every waiter has aborted
 * (the worker shuts down) the probe stops too. The probe asks the server's `GET /health` first (vLLM, SGLang and
 * llama.cpp have one, at the server root): 2xx is up, 5xx down — llama.cpp answers 503 there while it loads a model,
 * though its `/v1/models` already answers 200. A server without the route (Ollama, hosted APIs: any other status)
 * is asked `GET <baseUrl>/models`, where any answer below 500 counts as up (a 401 of a server with `--api-key`
 * included: the probe sends no key). A refused connection or no answer within the probe timeout is down
 * (docs/endpoint-health.md). No Temporal here: bin/cli/worker-runtime.ts adapts `GatedSlots` to the SDK's custom
 * slot supplier.
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
  return routeUrl(baseUrl, (p) => `${p}/models`);
}

/** The server root's `/health` (`http://box:8000/v1` → `http://box:8000/health`), credentials as in modelsUrl. */
export function healthUrl(baseUrl: string): { url: string; headers: Record<string, string> } {
  return routeUrl(baseUrl, (p) => `${p.replace(/\/v1$/, '')}/health`);
}

function routeUrl(baseUrl: string, route: (basePath: string) => string): { url: string; headers: Record<string, string> } {
  const u = new URL(baseUrl);
  u.pathname = route(u.pathname.replace(/\/+$/, ''));
  const headers: Record<string, string> = {};
  if (u.username || u.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  return { url: u.toString(), headers };
}

/** The status a GET answers with, or null (refused, reset, no answer within `timeoutMs`). */
async function statusOf(
  target: { url: string; headers: Record<string, string> },
  signal: AbortSignal,
  timeoutMs: number,
): Promise<number | null> {
  try {
    const res = await fetch(target.url, { headers: target.headers, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
    await res.body?.cancel().catch(() => undefined);
    return res.status;
  } catch {
    return null;
  }
}

/**
 * What the probe found: `up`, and from which route and status (`GET /health 503`), for a message. `GET /health`
 * 2xx is up and 5xx down; any other status there (no such route) hands over to `GET <baseUrl>/models`, up below 500.
 */
export async function probeEndpoint(baseUrl: string, signal: AbortSignal, timeoutMs = 5000): Promise<{ up: boolean; answer: string }> {
  const health = await statusOf(healthUrl(baseUrl), signal, timeoutMs);
  if (health === null) return { up: false, answer: 'GET /health: no answer (refused or timed out)' };
  if (health < 300 || health >= 500) return { up: health < 300, answer: `GET /health ${health}` };
  const models = await statusOf(modelsUrl(baseUrl), signal, timeoutMs);
  if (models === null) return { up: false, answer: `GET /health ${health}, GET …/models: no answer` };
  return { up: models < 500, answer: `GET /health ${health}, GET …/models ${models}` };
}

/** The gate's probe: probeEndpoint's verdict. */
export function httpProbe(baseUrl: string, timeoutMs = 5000): Probe {
  return async (signal) => (await probeEndpoint(baseUrl, signal, timeoutMs)).up;
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
