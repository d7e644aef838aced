/**
 * `phase5 status` of a sharded infer: one line per arm (bin/cli/watch.ts describeArms) with done/total lines,
 * lines/s, ETA and the workers running its shards, or the arm's final state.
 */
import { expect } from 'chai';
import { describeArms } from '../../bin/cli/watch';
import type { ArmStatus, StatusView } from '../../src/temporal/client';

const view = (arms: ArmStatus[] | undefined) => ({ workflowId: 'phase5-x-infer', status: 'RUNNING', arms }) as unknown as StatusView;
const arm = (a: Partial<ArmStatus>): ArmStatus => ({
  arm: 'rag',
  workflowId: 'w',
  status: 'RUNNING',
  done: 0,
  total: 0,
  rate: null,
  etaSeconds: null,
  workers: [],
  ...a,
});

describe('cli/watch: arms of a sharded infer in phase5 status', () => {
  it("shows each arm's lines, rate, ETA and workers; a finished arm its state", () => {
    expect(
      describeArms(
        view([
          arm({ arm: 'rag', done: 1200, total: 5092, rate: 41.6, etaSeconds: 93.4, workers: ['1848@gpu-a', '1968@gpu-b'] }),
          arm({ arm: 'zero_shot', done: 5092, total: 5092, status: 'COMPLETED', rate: 55 }),
          arm({ arm: 'placebo', done: 0, total: 5092 }),
        ]),
      ),
    ).to.deep.equal([
      'arm rag 1,200/5,092 lines · 42 lines/s · ETA 2 min · workers 1848@gpu-a, 1968@gpu-b',
      'arm zero_shot 5,092/5,092 lines · 55 lines/s · completed',
      'arm placebo 0/5,092 lines · workers -',
    ]);
  });

  it('says nothing for a workflow without arms', () => {
    expect(describeArms(view(undefined))).to.deep.equal([]);
  });
});
