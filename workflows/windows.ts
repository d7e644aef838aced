/**
 * Window algorithms of the fan-out workflows: plain promise code, deterministic inside a workflow because
 * workflow promises resolve in history order. Unit-tested outside Temporal (test/workflows/windows.test.ts).
 */

/**
 * `task` on every item, at most `limit` running at once (a sliding window: a lane takes the next item as
 * soon as its last one finished); results in item order.
 */
export async function mapWithWindow<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}

/**
 * mapWithWindow whose limit may grow while it runs: `grow()`, after `limit()` went up, spawns the extra lanes at
 * once (each takes the next item); `done()` resolves when every lane has run dry. While the limit stays put it
 * issues exactly mapWithWindow's commands, in the same order.
 */
export function growingWindow<T>(
  items: readonly T[],
  limit: () => number,
  task: (item: T) => Promise<void>,
): { grow(): void; done(): Promise<void> } {
  let next = 0;
  let active = 0;
  const lanes: Promise<void>[] = [];
  const lane = async (): Promise<void> => {
    active++;
    try {
      while (next < items.length) await task(items[next++]);
    } finally {
      active--;
    }
  };
  const grow = (): void => {
    while (active < Math.max(1, Math.floor(limit())) && next < items.length) lanes.push(lane());
  };
  const done = async (): Promise<void> => {
    grow();
    // Lanes a signal adds while we wait join the wait.
    for (let waited = -1; waited < lanes.length;) {
      waited = lanes.length;
      await Promise.all(lanes);
    }
  };
  return { grow, done };
}

/** A consumer of lanes: its window (lanes held) and how many it can use at most (its shard count). */
export interface LaneHolder {
  window: number;
  plan: { shards: number };
}

/**
 * Hand `free` lanes out one at a time, round robin in order, to holders whose window is still below their shard
 * count (more lanes than shards would sit idle). Returns the lanes nobody can use.
 */
export function shareLanes(free: number, holders: readonly LaneHolder[]): number {
  for (let gave = true; free > 0 && gave;) {
    gave = false;
    for (const a of holders) {
      if (free > 0 && a.window < a.plan.shards) {
        a.window++;
        free--;
        gave = true;
      }
    }
  }
  return free;
}
