import { expect } from 'chai';
import { Semaphore, runPool } from '../../src/llm/pool';

const tick = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe('llm/pool', () => {
  it('runs at most `concurrency` at once and returns results in input order', async () => {
    let active = 0;
    let peak = 0;
    const finished: number[] = [];
    const out = await runPool(
      [40, 10, 30, 5, 20, 1],
      3,
      async (ms, i) => {
        active++;
        peak = Math.max(peak, active);
        await tick(ms);
        active--;
        return i * 10;
      },
      { onResult: (_r, i) => finished.push(i) },
    );
    expect(out).to.deep.equal([0, 10, 20, 30, 40, 50]);
    expect(peak).to.equal(3);
    expect(finished).to.have.members([0, 1, 2, 3, 4, 5]);
    expect(finished).not.to.deep.equal([0, 1, 2, 3, 4, 5]); // completion order differs from input order
  });

  it('stops starting new items when the signal aborts', async () => {
    const ac = new AbortController();
    const started: number[] = [];
    const out = await runPool(
      [0, 1, 2, 3, 4, 5, 6, 7],
      2,
      async (_x, i) => {
        started.push(i);
        if (i === 2) ac.abort();
        await tick(5);
        return i;
      },
      { signal: ac.signal },
    );
    expect(started).to.deep.equal([0, 1, 2]); // 2 aborts; in-flight 1 finishes, nothing new starts
    expect(out.slice(0, 3)).to.deep.equal([0, 1, 2]);
    expect(out.slice(3)).to.deep.equal([undefined, undefined, undefined, undefined, undefined]);
  });

  it('rejects with the first error', async () => {
    await runPool([1, 2, 3], 2, async (x) => {
      if (x === 2) throw new Error('boom');
      return x;
    }).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.equal('boom'),
    );
    await runPool([1], 0, async (x) => x).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e).to.be.instanceOf(RangeError),
    );
  });

  it('semaphore hands slots over in FIFO order', async () => {
    const sem = new Semaphore(1);
    const order: string[] = [];
    const rel1 = await sem.acquire();
    const a = sem.acquire().then((r) => {
      order.push('a');
      return r;
    });
    const b = sem.acquire().then((r) => {
      order.push('b');
      return r;
    });
    await tick(5);
    expect(order).to.deep.equal([]);
    rel1();
    (await a)();
    (await b)();
    expect(order).to.deep.equal(['a', 'b']);
  });
});
