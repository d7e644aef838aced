/**
 * A step that reads and writes whole files heartbeats while it runs: `phase5 infer --import` of a large file
 * (validated line by line against the arm's export, then written) under a 1 s heartbeat timeout and a single
 * attempt, through the real workflow, worker and local Temporal server. Without its heartbeats the server
 * takes the busy worker for a dead one and the import fails with a heartbeat timeout.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import { inferWorkflow } from '../../workflows';
import { inferenceInputRecord } from '../helpers/records';
import { createLocalEnv } from '../helpers/temporal';
import { writeDefaultInput } from '../helpers/default-arms';

/** Lines enough that validating and writing them takes several heartbeat timeouts on a shared 2-core machine. */
const LINES = 200_000;
const HEARTBEAT_TIMEOUT = '1s';

describe('workflows: a long import heartbeats (1 s heartbeat timeout, one attempt)', function () {
  this.timeout(300000);
  let env: TestWorkflowEnvironment;

  before(async () => {
    env = await createLocalEnv();
  });
  after(async () => {
    await env?.teardown();
  });

  it(`imports ${LINES.toLocaleString('en-US')} lines without a heartbeat timeout`, async () => {
    const results = mkdtempSync(path.join(os.tmpdir(), 'import-heartbeat-'));
    const ids = Array.from({ length: LINES }, (_, i) => `s${i}`);
    writeDefaultInput(results, ids.map((id) => JSON.stringify(inferenceInputRecord(id))).join('\n') + '\n');
    const file = path.join(results, 'import.jsonl');
    const line = (id: string) =>
      JSON.stringify({
        sample_id: id,
        dataset: 'd',
        prompt_type: 'rag',
        prompt_version: 'p5v1',
        model: 'm',
        ocr_text: id,
        gt_text: id,
        corrected_text: id,
      });
    writeFileSync(file, ids.map(line).join('\n') + '\n');
    const queue = `import-heartbeat-${Date.now()}`;
    const config = parseConfig(
      {
        paths: { results_dir: results },
        infer: { arms: ['rag'] },
        temporal: {
          queues: { cpu: queue, gpu: queue },
          heartbeat_timeout: HEARTBEAT_TIMEOUT,
          stages: { infer: { queue: 'gpu', start_to_close: '5m', retry: { maximum_attempts: 1 } } },
        },
      },
      'import-heartbeat test',
      { env: {} },
    );
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: createActivities(),
      maxHeartbeatThrottleInterval: '300ms',
      defaultHeartbeatThrottleInterval: '300ms',
    });
    const t0 = Date.now();
    const result = await worker.runUntil(
      env.client.workflow.execute(inferWorkflow, {
        taskQueue: queue,
        workflowId: `import-heartbeat-${Date.now()}`,
        args: [{ run: 'hb', config, options: { importFile: file }, force: false }],
      }),
    );
    const seconds = (Date.now() - t0) / 1000;
    expect(result).to.have.nested.property('imported.imported', LINES);
    // The case is only a test of the heartbeat when the import outlasts the timeout.
    expect(seconds, 'the import took longer than the heartbeat timeout').to.be.above(2);
  });
});
