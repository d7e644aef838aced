/**
 * What a stage is retrying reaches the user (bin/cli/pending.ts): the progress line, `phase5 status` (its own
 * pending activities and each arm's) and `phase5 runs` carry the attempt and the last failure, and the plain
 * progress lines print a new failure at once instead of at the next 10 s tick.
 */
import { expect } from 'chai';
import { describeArms, describeStatus, progressOf, ProgressLines } from '../../bin/cli/watch';
import { retryingOf } from '../../bin/cli/pending';
import { formatRuns, type RunRow } from '../../bin/cli/commands/runs';
import type { ArmStatus, PendingActivityView, StatusView } from '../../src/temporal/client';

const KEY_FAILURE = "worker 26896@vm: environment variable HO_KEY is not set — set it in the worker's environment";
const pending = (a: Partial<PendingActivityView>): PendingActivityView => ({ type: 'inferShard', attempt: 1, heartbeat: null, ...a });
const arm = (a: Partial<ArmStatus>): ArmStatus => ({
  arm: 'rag',
  workflowId: 'w',
  status: 'RUNNING',
  done: 0,
  total: 2048,
  rate: null,
  etaSeconds: null,
  workers: [],
  ...a,
});
const view = (v: Partial<StatusView>): StatusView =>
  ({
    workflowId: 'phase5-x-infer',
    status: 'RUNNING',
    progress: { stage: 'infer', step: 'arms', done: 0, total: 3, unit: 'arms' },
    activity: null,
    activities: [],
    work: null,
    rate: null,
    etaSeconds: null,
    ...v,
  }) as StatusView;

describe('cli/pending: a retrying activity in the progress line, status and runs', () => {
  const arms = [arm({ arm: 'rag' }), arm({ arm: 'zero_shot', retrying: { attempt: 7, failure: KEY_FAILURE } }), arm({ arm: 'placebo' })];
  const infer = view({ arms, work: { done: 0, total: 6144, unit: 'lines' } });

  it('the progress line names the attempt and the last failure of any arm', () => {
    expect(progressOf(infer)).to.equal(`infer 0/6,144 lines · retrying (attempt 7): ${KEY_FAILURE}`);
    expect(describeArms(infer)[1]).to.equal(`arm zero_shot 0/2,048 lines · workers -${' · '}retrying (attempt 7): ${KEY_FAILURE}`);
  });

  it('status: the workflow’s own pending activity that failed before (attempt ≥ 2), the most-retried one first', () => {
    const v = view({
      activities: [
        pending({ attempt: 1 }),
        pending({ attempt: 3, lastFailure: 'connection refused' }),
        pending({ attempt: 5, lastFailure: 'timeout\n  at x' }),
      ],
    });
    expect(retryingOf(v)).to.deep.equal({ attempt: 5, failure: 'timeout at x' });
    expect(describeStatus(v)).to.match(/ \| retrying \(attempt 5\): timeout at x$/);
    expect(retryingOf(view({ activities: [pending({ attempt: 1, lastFailure: 'old' })] })), 'a first attempt is not a retry').to.equal(
      null,
    );
  });

  it('plain progress lines: a new failure is printed at once, the same one again only at the next tick', () => {
    const printed: string[] = [];
    let now = 0;
    const lines = new ProgressLines(
      (l) => printed.push(l),
      10_000,
      () => now,
    );
    const at = (attempt: number) =>
      view({
        arms: [arm({ retrying: attempt ? { attempt, failure: KEY_FAILURE } : null })],
        work: { done: 0, total: 2048, unit: 'lines' },
      });
    lines.show(at(0));
    now = 1000;
    lines.show(at(2));
    now = 2000;
    lines.show(at(2));
    now = 3000;
    lines.show(at(3));
    expect(printed).to.deep.equal([
      'infer started (phase5-x-infer)',
      'infer 0/2,048 lines',
      `infer 0/2,048 lines · retrying (attempt 2): ${KEY_FAILURE}`,
      `infer 0/2,048 lines · retrying (attempt 3): ${KEY_FAILURE}`,
    ]);
  });

  it('phase5 runs marks a retrying run and gives the reason once', () => {
    const row = (id: string, retrying: RunRow['retrying']): RunRow => ({
      workflowId: id,
      run: 'x',
      stage: 'infer',
      configHash: 'h',
      state: 'RUNNING',
      progress: null,
      retrying,
      startTime: '2026-01-01T00:00:00.000Z',
    });
    const out = formatRuns([
      row('phase5-x-infer-rag', { attempt: 7, failure: KEY_FAILURE }),
      row('phase5-x-infer-zero_shot', { attempt: 4, failure: KEY_FAILURE }),
      row('phase5-x-infer-placebo', null),
    ]);
    expect(out[1]).to.match(/^phase5-x-infer-rag\s+infer\s+RUNNING \(retrying, attempt 7\)\s+-\s+2026-01-01 00:00:00Z$/);
    expect(out[3]).to.match(/^phase5-x-infer-placebo\s+infer\s+RUNNING\s+-/);
    expect(out.slice(4)).to.deep.equal([`retrying: ${KEY_FAILURE}`]);
  });
});
