/**
 * An arm that failed for good says so while its child workflow is still running: it merges the lines it kept
 * before it ends (workflows/infer-arm.ts), and that merge can wait behind the shards still queued, so the reason
 * must not wait for it. Real Temporal server and workflows; injected faults: arm `bad`'s shard fails
 * non-retryably, arm `good`'s shard and every merge stall until the test releases them. The failure reaches what
 * the CLI shows — the progress line, `phase5 status` (describeStatus / describeArms) and `phase5 runs` — while the
 * infer workflow runs, and the closed workflow's root cause once it has failed.
 */
import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { describeArms, describeStatus, progressOf } from '../../bin/cli/watch';
import { formatRuns, listRuns, runsQuery } from '../../bin/cli/commands/runs';
import { closedFailure } from '../../bin/cli/pending';
import { parseConfig } from '../../src/config/load';
import { workflowStatus } from '../../src/temporal/client';
import { RUN_ATTR, STAGE_ATTR } from '../../src/temporal/search-attributes';
import type { ArmPlan } from '../../src/stages/infer/shards';
import { inferWorkflow } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { waitFor } from '../e2e/harness';
import { createLocalEnv } from '../helpers/temporal';

const REASON = "worker 1@w: environment variable ARM_KEY is not set — set it in the worker's environment";

const armPlan = (arm: string): ArmPlan => ({
  arm,
  prompt: 'zero_shot',
  output: `/unused/${arm}`,
  plan: { dir: '/unused', input: '/unused', datasets: [{ dataset: 'A', lines: 2 }], lines: 2, duplicates: 0, duplicateIds: [] },
  shardSize: 2,
  lines: 2,
  shards: 1,
});

const SHARD_RESULT = {
  model: 'm',
  written: 2,
  skippedExisting: 0,
  succeeded: 2,
  failed: 0,
  failuresByReason: {},
  promptTypes: {},
  promptTokens: 0,
  completionTokens: 0,
  elapsedMs: 1,
};

/** A promise the test resolves: the stalls of the injected faults. */
function release(): { wait: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('workflows/infer-arm: an arm that failed for good is shown while its merge waits', function () {
  this.timeout(180000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await createLocalEnv({ searchAttributes: [RUN_ATTR, STAGE_ATTR] });
  });
  after(async () => env?.teardown());

  it('the reason in the progress line, status and runs while running; the root cause once failed', async () => {
    const queue = `arm-failure-${Date.now()}`;
    const config = parseConfig({ temporal: { queues: { cpu: queue, gpu: queue } } }, 'arm failure test', { env: {} });
    const input: StageInput = { run: 'arm-failure', config, options: {}, force: false };
    const stall = release();
    const activities = {
      planInfer: async () => [armPlan('bad'), armPlan('good')],
      inferShard: async (args: { arm: ArmPlan }) => {
        if (args.arm.arm === 'bad') throw ApplicationFailure.create({ type: 'WorkerLocalError', message: REASON, nonRetryable: true });
        await stall.wait;
        return { ...SHARD_RESULT, shard: 'A:0', lines: 2 };
      },
      mergeInferArm: async () => {
        await stall.wait;
        return { output: '/unused', records: 0, failed: 0, skipped: { total: 0, kinds: {} } };
      },
    };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities,
    });
    const client = env.client;
    const workflowId = `phase5-armfailure${Date.now()}-infer`; // its arms: <id>-bad, <id>-good
    const handle = await client.workflow.start(inferWorkflow, {
      taskQueue: queue,
      workflowId,
      args: [input],
      typedSearchAttributes: [
        { key: RUN_ATTR, value: 'arm-failure' },
        { key: STAGE_ATTR, value: 'infer' },
      ],
    });
    await worker.runUntil(async () => {
      try {
        await watchWhileRunning();
      } finally {
        stall.open();
      }
      await handle.result().catch(() => undefined);
    });
    async function watchWhileRunning(): Promise<void> {
      // The hang guard only: without the failure in the arm's progress nothing says it until the merge ends.
      await waitFor(
        "arm bad's failure in the infer workflow's status",
        async () => (await workflowStatus(client, workflowId)).arms?.some((a) => a.failure) ?? false,
        60_000,
        200,
      );
      const view = await workflowStatus(client, workflowId);
      expect(view.status).to.equal('RUNNING');
      expect(view.arms!.find((a) => a.arm === 'bad')!.failure).to.equal(REASON);
      expect(progressOf(view)).to.contain(` · failed: arm bad: ${REASON}`);
      expect(describeStatus(view)).to.contain(`failed: arm bad: ${REASON}`);
      expect(describeArms(view).find((l) => l.startsWith('arm bad '))).to.match(
        new RegExp(`· failed: ${REASON.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
      );
      expect(describeArms(view).find((l) => l.startsWith('arm good '))).to.not.contain('failed');
      // `phase5 runs`, once the server's visibility lists the run.
      const listed = async () =>
        (await listRuns(client, runsQuery({ run: 'arm-failure' }), 10)).some((r) => r.workflowId === `${workflowId}-bad`);
      await waitFor('the run and its arms listed', listed, 30_000, 200);
      const rows = await listRuns(client, runsQuery({ run: 'arm-failure' }), 10);
      // The arms' children are listed too (labelled like their stage): the stage's row names the arm.
      expect(rows.find((r) => r.workflowId === workflowId)?.failure).to.equal(`arm bad: ${REASON}`);
      expect(rows.find((r) => r.workflowId === `${workflowId}-bad`)?.failure).to.equal(REASON);
      const out = formatRuns(rows);
      expect(out.find((l) => l.startsWith(`${workflowId} `))).to.match(/ RUNNING \(failing\) /);
      expect(out).to.include(`failed: arm bad: ${REASON}`);
    }
    // Closed: the root cause, as the stage command prints it, for status and runs.
    const failed = `infer (arm bad) failed: ${REASON}`;
    expect(await closedFailure(client, workflowId, 'infer')).to.equal(failed);
    await waitFor(
      'the run listed as failed',
      async () =>
        (await listRuns(client, runsQuery({ run: 'arm-failure' }), 10)).find((r) => r.workflowId === workflowId)?.state === 'FAILED',
      30_000,
      200,
    );
    const rows = await listRuns(client, runsQuery({ run: 'arm-failure' }), 10);
    expect(formatRuns(rows)).to.include(`failed: ${failed}`);
  });
});
