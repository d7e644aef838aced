/**
 * activityHooks: how a plain stage's hooks map onto the activity context — resumeFrom is the previous
 * attempt's checkpoint, a checkpoint heartbeats at once (progress is throttled), signal is the activity's
 * cancellation —, withActivityHooks stopping the keep-alive however the work ends, and asActivity's mapping of input errors to non-retryable failures.
 */
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { asActivity } from '../../activities/as-activity';
import { activityHooks, withActivityHooks } from '../../activities/hooks';
import { UserInputError } from '../../src/stages/shared/types';
import { recordingEnv } from './helpers';

describe('activities/context', () => {
  it('resumeFrom is the checkpoint the previous attempt heartbeated', async () => {
    const previous = {
      step: 'embed',
      done: 640,
      total: 1000,
      unit: 'sentences',
      attemptStartedAt: '',
      doneAtAttemptStart: 0,
      checkpoint: { rowsEmbedded: 640 },
    };
    const { beats, run } = recordingEnv({ heartbeatDetails: previous });
    const resumed = await run(async () => {
      const hooks = activityHooks<{ rowsEmbedded: number }>('embed', 'sentences');
      hooks.stop();
      return hooks.resumeFrom;
    });
    expect(resumed).to.deep.equal({ rowsEmbedded: 640 });
    expect(beats[0]).to.include({ step: 'embed', done: 640, doneAtAttemptStart: 640 });
  });

  it('progress is throttled, a checkpoint heartbeats at once with the last progress', async () => {
    const { beats, run } = recordingEnv();
    await run(async () => {
      const hooks = activityHooks<{ records: number }>('demo#0', 'records');
      for (let i = 1; i <= 50; i++) hooks.onProgress?.(i, 100);
      hooks.checkpoint?.({ records: 50 });
      hooks.stop();
    });
    expect(beats.length, 'one start beat, at most one throttled beat, one checkpoint').to.be.at.most(3);
    expect(beats.at(-1)).to.deep.include({ done: 50, total: 100, checkpoint: { records: 50 } });
  });

  it('signal fires when Temporal cancels the activity', async () => {
    const { env, run } = recordingEnv();
    const aborted = run(async () => {
      const hooks = activityHooks('x', 'items');
      env.cancel();
      await new Promise((r) => setTimeout(r, 10));
      hooks.stop();
      return hooks.signal?.aborted;
    });
    expect(await aborted).to.equal(true);
  });

  it('withActivityHooks keeps the activity alive while the work runs and stops the keep-alive when it throws', async () => {
    const { beats, run } = recordingEnv({ heartbeatTimeoutMs: 1500 }); // keep-alive every 500 ms
    const failed = await run(() =>
      withActivityHooks('merge', 'steps', 0, async (hooks) => {
        expect(hooks.resumeFrom).to.equal(undefined);
        await new Promise((r) => setTimeout(r, 1100));
        throw new Error('disk full');
      }),
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect((failed as Error).message).to.equal('disk full');
    const whileRunning = beats.length;
    expect(whileRunning, 'the start beat and keep-alive beats while the work ran').to.be.at.least(2);
    await new Promise((r) => setTimeout(r, 1100));
    expect(beats.length, 'no keep-alive beat after the work ended').to.equal(whileRunning);
  });

  it('asActivity makes input errors non-retryable and leaves other errors retryable', async () => {
    const input = await asActivity(async () => {
      throw new UserInputError('dataset demo: /x not found');
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(input).to.be.instanceOf(ApplicationFailure);
    expect(input).to.deep.include({ nonRetryable: true, type: 'UserInputError', message: 'dataset demo: /x not found' });
    const other = await asActivity(async () => {
      throw new Error('ECONNRESET');
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(other).to.not.be.instanceOf(ApplicationFailure);
  });
});
