/**
 * A worker's own pause on a task queue, beside the endpoint gate (./endpoint-health.ts): after a task failed on
 * something only this worker lacks (a missing API key variable, a model file — activities/failure-kind.ts), the
 * worker takes no task of that queue for a while, so the retry goes to a worker that has it instead of coming
 * back here, idle and always first to poll, to fail again. `allUp` joins gates for one set of slots.
 */
export interface Gate {
  readonly isUp: boolean;
  waitUntilUp(signal: AbortSignal): Promise<void>;
}

export class PauseGate implements Gate {
  private until = 0;
  constructor(private readonly now: () => number = Date.now) {}

  get isUp(): boolean {
    return this.now() >= this.until;
  }

  /** Closed for `ms` from now (a later end wins). */
  pause(ms: number): void {
    this.until = Math.max(this.until, this.now() + ms);
  }

  async waitUntilUp(signal: AbortSignal): Promise<void> {
    while (!this.isUp) {
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const t = setTimeout(resolve, Math.max(1, this.until - this.now()));
        signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
      });
    }
  }
}

/** Up when every gate is up; waits for each in turn until all are up at once. */
export function allUp(gates: Gate[]): Gate {
  return {
    get isUp() {
      return gates.every((g) => g.isUp);
    },
    async waitUntilUp(signal) {
      while (!gates.every((g) => g.isUp)) for (const g of gates) await g.waitUntilUp(signal);
    },
  };
}
