/**
 * The fan-out windows of workflows/windows.ts, outside Temporal: at most `limit` tasks in flight, results in
 * item order, a growing window that spawns lanes at once and waits for lanes added while it waits, and the
 * pool's lane sharing (round robin, never more lanes than shards).
 */
import { expect } from 'chai';
import { growingWindow, mapWithWindow, shareLanes, type LaneHolder } from '../../workflows/windows';

/** A task whose completions the test releases by hand, recording how many ran at once. */
function gatedTasks<T>() {
  const waiting: { item: T; release: () => void }[] = [];
  const started: T[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const task = async (item: T): Promise<T> => {
    started.push(item);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise<void>((resolve) => waiting.push({ item, release: resolve }));
    inFlight--;
    return item;
  };
  const settle = () => new Promise<void>((r) => setImmediate(r));
  const releaseAll = async (): Promise<void> => {
    while (waiting.length) {
      waiting.shift()!.release();
      await settle();
    }
  };
  return { task, started, waiting, settle, releaseAll, maxInFlight: () => maxInFlight };
}

describe('workflows/windows', () => {
  describe('mapWithWindow', () => {
    it('keeps at most `limit` tasks in flight and returns results in item order', async () => {
      const items = [1, 2, 3, 4, 5, 6, 7];
      // Later items finish first: results must still come back in item order.
      const out = await mapWithWindow(items, 3, async (n) => {
        await new Promise((r) => setTimeout(r, (8 - n) * 2));
        return n * 10;
      });
      expect(out).to.deep.equal([10, 20, 30, 40, 50, 60, 70]);
      const g = gatedTasks<number>();
      const run = mapWithWindow(items, 3, g.task);
      await g.settle();
      expect(g.started).to.deep.equal([1, 2, 3]);
      g.waiting.shift()!.release();
      await g.settle();
      expect(g.started).to.deep.equal([1, 2, 3, 4]); // a lane takes the next item as soon as its last finished
      await g.releaseAll();
      expect(await run).to.deep.equal(items);
      expect(g.maxInFlight()).to.equal(3);
    });

    it('runs one lane for a limit below 1 and no more lanes than items', async () => {
      const g = gatedTasks<string>();
      const run = mapWithWindow(['a', 'b'], 0, g.task);
      await g.settle();
      expect(g.started).to.deep.equal(['a']);
      await g.releaseAll();
      expect(await run).to.deep.equal(['a', 'b']);
      expect(await mapWithWindow([], 5, async (x) => x)).to.deep.equal([]);
      const h = gatedTasks<string>();
      const all = mapWithWindow(['x', 'y'], 10, h.task);
      await h.settle();
      expect(h.started).to.deep.equal(['x', 'y']);
      await h.releaseAll();
      await all;
    });

    it('rejects with the first failing task', async () => {
      const failing = mapWithWindow([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error('shard 2 failed');
        return n;
      });
      await failing.then(
        () => expect.fail('expected a rejection'),
        (err: Error) => expect(err.message).to.equal('shard 2 failed'),
      );
    });
  });

  describe('growingWindow', () => {
    it('starts `limit` lanes, spawns more at once when the limit grows, and done() waits for the added lanes', async () => {
      let limit = 1;
      const g = gatedTasks<number>();
      const w = growingWindow(
        [1, 2, 3, 4, 5],
        () => limit,
        async (n) => {
          await g.task(n);
        },
      );
      let finished = false;
      const done = w.done().then(() => (finished = true));
      await g.settle();
      expect(g.started).to.deep.equal([1]);
      limit = 3;
      w.grow();
      await g.settle();
      expect(g.started).to.deep.equal([1, 2, 3]); // two extra lanes at once, without waiting for item 1
      g.waiting.shift()!.release(); // item 1 done: its lane takes item 4
      await g.settle();
      expect(g.started).to.deep.equal([1, 2, 3, 4]);
      expect(finished).to.equal(false);
      await g.releaseAll();
      await done;
      expect(finished).to.equal(true);
      expect(g.started).to.deep.equal([1, 2, 3, 4, 5]);
      expect(g.maxInFlight()).to.equal(3);
    });

    it('never runs more lanes than items left, and grow() without a higher limit adds none', async () => {
      const g = gatedTasks<number>();
      const w = growingWindow(
        [1, 2],
        () => 8,
        async (n) => {
          await g.task(n);
        },
      );
      const done = w.done();
      await g.settle();
      w.grow();
      await g.settle();
      expect(g.started).to.deep.equal([1, 2]);
      await g.releaseAll();
      await done;
      expect(g.maxInFlight()).to.equal(2);
    });
  });

  describe('shareLanes', () => {
    const holder = (window: number, shards: number): LaneHolder => ({ window, plan: { shards } });

    it('hands lanes out round robin in order and returns those nobody can use', () => {
      const arms = [holder(1, 10), holder(1, 2), holder(1, 10)];
      expect(shareLanes(5, arms)).to.equal(0);
      expect(arms.map((a) => a.window)).to.deep.equal([3, 2, 3]); // the second arm stops at its 2 shards
      const full = [holder(2, 2), holder(1, 1)];
      expect(shareLanes(4, full)).to.equal(4);
      expect(full.map((a) => a.window)).to.deep.equal([2, 1]);
      const some = [holder(0, 3)];
      expect(shareLanes(5, some)).to.equal(2);
      expect(some[0].window).to.equal(3);
    });
  });
});
