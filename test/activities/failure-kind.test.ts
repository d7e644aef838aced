/**
 * The decision for a failure only some workers have (activities/failure-kind.ts): retried while a worker polling
 * the queue has not failed this way yet; non-retryable once all have, or after the bound of consecutive failures
 * per polling worker; a different problem starts the count again. Outside Temporal the process is the only worker.
 */
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { decideWorkerLocal, workerIdentity, workerLocalFailure } from '../../activities/failure-kind';
import { missingKeyError } from '../../src/util/worker-setup-error';

const KEY = 'environment variable HO_KEY is not set';

describe('activities/failure-kind: worker-local failures', () => {
  it('one polling worker that failed: final at once', () => {
    expect(decideWorkerLocal(undefined, KEY, '1@a', ['1@a'], 3)).to.deep.equal({
      record: { problem: KEY, failures: 1, workers: ['1@a'], pollers: ['1@a'] },
      final: 'all-workers',
    });
  });

  it('two polling workers: retried until the other one failed too', () => {
    const first = decideWorkerLocal(undefined, KEY, '1@a', ['1@a', '2@b'], 3);
    expect(first.final).to.equal(null);
    const again = decideWorkerLocal(first.record, KEY, '1@a', ['1@a', '2@b'], 3);
    expect(again).to.deep.equal({ record: { problem: KEY, failures: 2, workers: ['1@a'], pollers: ['1@a', '2@b'] }, final: null });
    expect(decideWorkerLocal(again.record, KEY, '2@b', ['1@a', '2@b'], 3).final).to.equal('all-workers');
  });

  it('bounded: max attempts per polling worker in a row, also when the pollers cannot be listed', () => {
    let rec = decideWorkerLocal(undefined, KEY, '1@a', ['1@a', '2@b'], 3).record;
    for (let i = 2; i < 6; i++) rec = decideWorkerLocal(rec, KEY, '1@a', ['1@a', '2@b'], 3).record;
    expect(decideWorkerLocal(rec, KEY, '1@a', ['1@a', '2@b'], 3).final).to.equal('bound');
    let unknown = decideWorkerLocal(undefined, KEY, '1@a', null, 3);
    unknown = decideWorkerLocal(unknown.record, KEY, '1@a', null, 3);
    expect(unknown.final).to.equal(null);
    expect(decideWorkerLocal(unknown.record, KEY, '1@a', null, 3).final).to.equal('bound');
  });

  it('another problem starts the count again', () => {
    const first = decideWorkerLocal(undefined, KEY, '1@a', ['1@a', '2@b'], 3);
    expect(decideWorkerLocal(first.record, 'GGUF model not found: /m.gguf', '2@b', ['1@a', '2@b'], 3)).to.deep.equal({
      record: { problem: 'GGUF model not found: /m.gguf', failures: 1, workers: ['2@b'], pollers: ['1@a', '2@b'] },
      final: null,
    });
  });

  it('a worker once seen polling still counts when the server’s list forgets it (a server restart)', () => {
    const before = decideWorkerLocal(undefined, KEY, '3@bad', ['1@a', '2@b', '3@bad'], 3);
    const afterRestart = decideWorkerLocal(before.record, KEY, '3@bad', ['3@bad'], 3);
    expect(afterRestart.final, 'the good workers were seen').to.equal(null);
    expect(afterRestart.record.pollers).to.deep.equal(['1@a', '2@b', '3@bad']);
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
