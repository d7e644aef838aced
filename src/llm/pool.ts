/**
 * A tiny bounded-concurrency pool: at most `concurrency` calls of `fn` in flight, items started in order.
 * Results come back in input order; `onResult` fires as each item finishes (in completion order).
 * A `signal` stops new items from starting; in-flight ones finish and the items never started are
 * reported as `undefined` in the result array (check `signal.aborted`).
 */
export interface PoolOptions<R> {
  signal?: AbortSignal;
  onResult?: (result: R, index: number) => void;
}

export async function runPool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
  opts: PoolOptions<R> = {},
): Promise<(R | undefined)[]> {
  if (!(Number.isInteger(concurrency) && concurrency >= 1))
    throw new RangeError(`runPool: concurrency must be an integer >= 1, got ${concurrency}`);
  const results: (R | undefined)[] = new Array(items.length).fill(undefined);
  let next = 0;
  let failure: { err: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (!failure && !opts.signal?.aborted && next < items.length) {
      const i = next++;
      try {
        const r = await fn(items[i], i);
        results[i] = r;
        opts.onResult?.(r, i);
      } catch (err) {
        // First error wins; other workers stop picking up new items and the pool rejects with it.
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (failure) throw (failure as { err: unknown }).err;
  return results;
}

/** A counting semaphore, for backends that must cap their own in-flight calls. */
export class Semaphore {
  private waiters: (() => void)[] = [];
  private active = 0;
  constructor(private readonly max: number) {
    if (!(Number.isInteger(max) && max >= 1)) throw new RangeError(`Semaphore: max must be an integer >= 1, got ${max}`);
  }

  async acquire(): Promise<() => void> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next)
        next(); // hand the slot over directly; `active` stays the same
      else this.active--;
    };
  }
}
