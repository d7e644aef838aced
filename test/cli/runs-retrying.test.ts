/**
 * `phase5 runs` marks a study (`phase5-<run>`, stage `run`) retrying when one of its running stage workflows
 * retries an activity: the study's own pending activities are none (it only starts child workflows), so the mark
 * comes from its pending children. Against a client stand-in that answers list / describe like a server would.
 */
import { expect } from 'chai';
import type { Client } from '@temporalio/client';
import { formatRuns, listRuns } from '../../bin/cli/commands/runs';

const KEY_FAILURE = "worker 26896@vm: environment variable HO_KEY is not set — set it in the worker's environment";

interface FakeWorkflow {
  stage: string;
  activities?: { attempt: number; lastFailure?: string }[];
  children?: string[];
}

/** A client whose workflows are `workflows` (all RUNNING, labelled run `x`); no worker answers the progress query. */
function fakeClient(workflows: Record<string, FakeWorkflow>): Client {
  const info = (id: string) => ({
    workflowId: id,
    status: { name: 'RUNNING' },
    startTime: new Date('2026-01-01T00:00:00Z'),
    typedSearchAttributes: { get: (key: { name: string }) => ({ Phase5Run: 'x', Phase5Stage: workflows[id].stage })[key.name] },
  });
  const describe = async (id: string) => ({
    status: { name: 'RUNNING' },
    raw: {
      pendingActivities: (workflows[id].activities ?? []).map((a) => ({
        activityType: { name: 'inferShard' },
        attempt: a.attempt,
        lastFailure: a.lastFailure ? { message: a.lastFailure } : undefined,
      })),
      pendingChildren: (workflows[id].children ?? []).map((workflowId) => ({ workflowId })),
    },
  });
  return {
    withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
    workflow: {
      list: async function* () {
        for (const id of Object.keys(workflows)) yield info(id);
      },
      getHandle: (id: string) => ({
        describe: () => describe(id),
        query: async () => {
          throw new Error('no worker answers');
        },
      }),
    },
  } as unknown as Client;
}

describe('cli/runs: a study is marked retrying when one of its stages retries', () => {
  it('marks the study row with its running stage’s retrying activity, and gives the reason once', async () => {
    const rows = await listRuns(
      fakeClient({
        'phase5-x': { stage: 'run', children: ['phase5-x-infer'] },
        'phase5-x-infer': { stage: 'infer', activities: [{ attempt: 7, lastFailure: KEY_FAILURE }, { attempt: 1 }] },
      }),
      'query',
      10,
    );
    const study = rows.find((r) => r.workflowId === 'phase5-x');
    expect(study?.retrying).to.deep.equal({ attempt: 7, failure: KEY_FAILURE });
    const out = formatRuns(rows);
    expect(out.find((l) => l.startsWith('phase5-x '))).to.match(/^phase5-x\s+run\s+RUNNING \(retrying, attempt 7\)\s/);
    expect(out.find((l) => l.startsWith('phase5-x-infer '))).to.match(/RUNNING \(retrying, attempt 7\)/);
    expect(out.filter((l) => l.startsWith('retrying:'))).to.deep.equal([`retrying: ${KEY_FAILURE}`]);
  });

  it('takes the most-retried of several stages; a study whose stages do not retry is not marked', async () => {
    const rows = await listRuns(
      fakeClient({
        'phase5-x': { stage: 'run', children: ['phase5-x-export', 'phase5-x-gone'] },
        'phase5-x-export': { stage: 'export', activities: [{ attempt: 3, lastFailure: 'disk full' }] },
        'phase5-y': { stage: 'run', children: ['phase5-y-export'] },
        'phase5-y-export': { stage: 'export', activities: [{ attempt: 1 }] },
      }),
      'query',
      10,
    );
    expect(rows.find((r) => r.workflowId === 'phase5-x')?.retrying).to.deep.equal({ attempt: 3, failure: 'disk full' });
    expect(rows.find((r) => r.workflowId === 'phase5-y')?.retrying).to.equal(null);
  });
});
