/**
 * The decision for a failure only some workers have (activities/failure-kind.ts): retried while a worker polling
 * the queue has not failed this way yet; non-retryable once all have, or after the bound of consecutive failures
 * per polling worker; a different problem starts the count again. Outside Temporal the process is the only worker.
 */
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { decideWorkerLocal, LIVE_POLLER_WINDOW_MS, pollTimes, workerIdentity, workerLocalFailure } from '../../activities/failure-kind';
import { missingKeyError } from '../../src/util/worker-setup-error';

const KEY = 'environment variable HO_KEY is not set';
const NOW = 1_800_000_000_000;
/** Workers that polled just now. */
const at = (...ids: string[]): Record<string, number> => Object.fromEntries(ids.map((id) => [id, NOW]));
const decide = (prev: Parameters<typeof decideWorkerLocal>[0], me: string, pollers: Record<string, number> | null, problem = KEY) =>
  decideWorkerLocal(prev, problem, me, pollers, 3, NOW);

describe('activities/failure-kind: worker-local failures', () => {
  it('one polling worker that failed: final at once', () => {
    expect(decide(undefined, '1@a', at('1@a'))).to.deep.equal({
      record: { problem: KEY, failures: 1, workers: ['1@a'], pollers: at('1@a') },
      final: 'all-workers',
    });
  });

  it('two polling workers: retried until the other one failed too', () => {
    const first = decide(undefined, '1@a', at('1@a', '2@b'));
    expect(first.final).to.equal(null);
    const again = decide(first.record, '1@a', at('1@a', '2@b'));
    expect(again).to.deep.equal({ record: { problem: KEY, failures: 2, workers: ['1@a'], pollers: at('1@a', '2@b') }, final: null });
    expect(decide(again.record, '2@b', at('1@a', '2@b')).final).to.equal('all-workers');
  });

  it('bounded: max attempts per polling worker in a row, also when the pollers cannot be listed', () => {
    let rec = decide(undefined, '1@a', at('1@a', '2@b')).record;
    for (let i = 2; i < 6; i++) rec = decide(rec, '1@a', at('1@a', '2@b')).record;
    expect(decide(rec, '1@a', at('1@a', '2@b')).final).to.equal('bound');
    let unknown = decide(undefined, '1@a', null);
    unknown = decide(unknown.record, '1@a', null);
    expect(unknown.final).to.equal(null);
    expect(decide(unknown.record, '1@a', null).final).to.equal('bound');
  });

  it('another problem starts the count again', () => {
    const first = decide(undefined, '1@a', at('1@a', '2@b'));
    expect(decide(first.record, '2@b', at('1@a', '2@b'), 'GGUF model not found: /m.gguf')).to.deep.equal({
      record: { problem: 'GGUF model not found: /m.gguf', failures: 1, workers: ['2@b'], pollers: at('1@a', '2@b') },
      final: null,
    });
  });

  it('a worker once seen polling still counts when the server’s list forgets it (a server restart)', () => {
    const before = decide(undefined, '3@bad', at('1@a', '2@b', '3@bad'));
    const afterRestart = decide(before.record, '3@bad', at('3@bad'));
    expect(afterRestart.final, 'the good workers were seen').to.equal(null);
    expect(afterRestart.record.pollers).to.deep.equal(at('1@a', '2@b', '3@bad'));
  });

  it('a stopped worker the server still lists does not count once its last poll is older than the window', () => {
    const stale = NOW - LIVE_POLLER_WINDOW_MS - 1000;
    const listed = { '1@gone': stale, '2@gone': stale, '3@live': NOW };
    const r = decide(undefined, '3@live', listed);
    expect(r.final, 'ends after the live worker failed').to.equal('all-workers');
    expect(r.record.pollers).to.deep.equal(at('3@live'));
    // The same list while those polls were recent: the other workers count, and the run is retried on them.
    expect(decideWorkerLocal(undefined, KEY, '3@live', listed, 3, stale).final).to.equal(null);
  });

  it('a worker seen before drops out once its last poll is older than the window', () => {
    const first = decideWorkerLocal(undefined, KEY, '3@live', { '1@gone': NOW, '3@live': NOW }, 3, NOW);
    expect(first.final).to.equal(null);
    const later = NOW + LIVE_POLLER_WINDOW_MS + 1000;
    expect(decideWorkerLocal(first.record, KEY, '3@live', { '3@live': later }, 3, later).final).to.equal('all-workers');
  });

  it('pollTimes: the latest poll per identity from DescribeTaskQueue’s lastAccessTime', () => {
    const t = pollTimes(
      [
        { identity: '1@a', lastAccessTime: { seconds: 100, nanos: 500_000_000 } },
        { identity: '1@a', lastAccessTime: { seconds: 90 } },
        { identity: '2@b', lastAccessTime: null },
        { identity: '' },
      ],
      NOW,
    );
    expect(t).to.deep.equal({ '1@a': 100_500, '2@b': NOW });
  });

  it('outside Temporal: non-retryable, naming this worker and the fix', async () => {
    const f = await workerLocalFailure(missingKeyError('HO_KEY'));
    expect(f).to.be.instanceOf(ApplicationFailure);
    expect(f.nonRetryable).to.equal(true);
    expect(f.message).to.equal(
      `worker ${workerIdentity()}: ${KEY} — set it in the worker's environment (every worker polling the queue failed this way: ${workerIdentity()})`,
    );
  });
});
