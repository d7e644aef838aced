/**
 * A sharded witness export through Temporal (real local server, an in-process worker with every activity): the
 * export workflow searches each of the 4 index shards as its own activity in rounds (scatter), one gather places the
 * lines, and the arm's inference_input.jsonl is byte-identical to the same arm's over one index (real data).
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { createStageCalls } from '../helpers/stage-calls';
import { witnessShardsStudy } from '../helpers/witness-shards-study';
import type { StageInput } from '../../src/stages/shared/types';
import { exportWorkflow } from '../../workflows';
import { MINILM, requireModel } from '../embed/models';
import { createLocalEnv } from '../helpers/temporal';
import { requireSharedData } from '../helpers/shared-data';

describe('workflows: a sharded witness export, each index shard its own activity (real data)', function () {
  this.timeout(900000);
  let env: TestWorkflowEnvironment;
  let dir: string;
  let activityTypes: string[] = [];

  before(async function () {
    const openiti = requireSharedData(this, 'openiti');
    requireSharedData(this, 'ocr-gs');
    requireModel(this, MINILM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'witness-scatter-'));
    const queue = `witness-scatter-${Date.now()}`;
    const config = witnessShardsStudy(dir, openiti, { temporal: { queues: { cpu: queue, gpu: `${queue}-gpu` } } });
    const input: StageInput = { run: 'witness-scatter', config, options: { limit: 210 }, force: false };
    const acts = createStageCalls();
    await acts.buildCorpus(input);
    await acts.buildIndex(input);
    env = await createLocalEnv();
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: acts,
    });
    const workflowId = `witness-scatter-${Date.now()}`;
    await worker.runUntil(env.client.workflow.execute(exportWorkflow, { taskQueue: queue, workflowId, args: [input] }));
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    activityTypes = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name ?? ''] : [],
    );
  });

  after(async () => {
    await env?.teardown();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the rounds as activities: gathers, and 4 shard activities a round', () => {
    const gathers = activityTypes.filter((t) => t === 'witnessGather').length;
    expect(gathers, 'rounds').to.be.at.least(2);
    expect(activityTypes.filter((t) => t === 'witnessShardRound')).to.have.length(4 * gathers);
    const [group] = readdirSync(path.join(dir, 'exports')).filter((g) =>
      readdirSync(path.join(dir, 'exports', g)).includes('witness-rounds'),
    );
    const [fp] = readdirSync(path.join(dir, 'exports', group, 'witness-rounds'));
    const files = readdirSync(path.join(dir, 'exports', group, 'witness-rounds', fp));
    expect(files).to.include.members(['placed.json', 'hits-0.json', 'hits-3.json', 'requests-0.json', 'answers-0-3.json']);
  });

  it('the arm over 4 shards exports the bytes of the arm over one index', () => {
    const read = (arm: string) => readFileSync(path.join(dir, 'arms', arm, 'inference_input.jsonl'), 'utf8');
    expect(read('one').split('\n').filter(Boolean)).to.have.length(210);
    expect(read('four')).to.equal(read('one'));
  });
});
