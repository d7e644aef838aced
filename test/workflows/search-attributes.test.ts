/**
 * A study started with the phase5 search attributes and memo passes them to its stage children, with
 * Phase5Stage set to each stage (the SDK copies nothing to children by itself), so `Phase5Run = "…"` finds the
 * stages too; a study started without them starts its children without them (clusters lacking the attributes).
 */
import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import { ARM_ATTR, CONFIG_HASH_ATTR, DATASETS_ATTR, RUN_ATTR, runStartLabels, STAGE_ATTR } from '../../src/temporal/search-attributes';
import { phase5Workflow } from '../../workflows';
import type { Phase5Input } from '../../workflows/types';
import { createLocalEnv } from '../helpers/temporal';

const STAGES = ['build', 'export', 'infer', 'analyze'] as const;

/** Activities that do nothing but return the small results the workflows read. */
const noopActivities = {
  planStudyBuilds: async () => ({ corpora: [], witnessIndexes: [] }),
  buildRunCorpus: async () => ({}),
  planIndexShards: async () => ({ reused: {}, shards: [] }),
  planExport: async () => ({ datasets: [{ dataset: 'A', samples: 1, shards: [{ dataset: 'A', index: 0, start: 0, end: 1 }] }] }),
  exportShard: async () => ({ records: 1, fallbacks: 0 }),
  mergeExport: async () => ({ records: 1 }),
  // Sharded infer: one arm of one one-line shard, so an arm child workflow starts.
  planInfer: async () => [
    {
      arm: 'rag',
      prompt: 'rag',
      output: '/unused',
      plan: { dir: '/unused', input: '/unused', datasets: [{ dataset: 'A', lines: 1 }], lines: 1, duplicates: 0, duplicateIds: [] },
      shardSize: 1,
      lines: 1,
      shards: 1,
    },
  ],
  inferShard: async () => ({
    model: 'm',
    written: 1,
    skippedExisting: 0,
    succeeded: 1,
    failed: 0,
    failuresByReason: {},
    promptTypes: {},
    promptTokens: 0,
    completionTokens: 0,
    elapsedMs: 1,
    shard: '0',
    lines: 1,
  }),
  mergeInferArm: async () => ({ output: '/unused', records: 1, failed: 0, skipped: { total: 0, kinds: {} } }),
  importCorrections: async () => ({}),
  analyzeResults: async () => ({}),
};

describe('workflows: search attributes and memo reach the stage children', function () {
  this.timeout(120000);
  let env: TestWorkflowEnvironment;

  before(async () => {
    env = await createLocalEnv({ searchAttributes: [RUN_ATTR, STAGE_ATTR, CONFIG_HASH_ATTR, DATASETS_ATTR, ARM_ATTR] });
  });
  after(async () => {
    await env?.teardown();
  });

  async function runStudy(run: string, labelled: boolean) {
    const config = parseConfig({ run_name: 'sa', temporal: { queues: { cpu: 'sa-cpu', gpu: 'sa-gpu' } } }, 'test', { env: {} });
    const input: Phase5Input = { run, config, options: {} };
    const labels = labelled ? runStartLabels(config, undefined, run, 'run') : {};
    const bundle = await workflowBundle();
    const workers = await Promise.all(
      ['sa-cpu', 'sa-gpu'].map((taskQueue) =>
        Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: noopActivities }),
      ),
    );
    const running = workers.map((w) => w.run());
    try {
      await env.client.workflow.execute(phase5Workflow, { taskQueue: 'sa-cpu', workflowId: `phase5-${run}`, args: [input], ...labels });
    } finally {
      workers.forEach((w) => w.shutdown());
      await Promise.all(running);
    }
  }

  it('each child carries the study labels with its own Phase5Stage, and the memo', async () => {
    const run = `sa-${Date.now()}-1a2b3c4d`;
    await runStudy(run, true);
    for (const stage of STAGES) {
      const d = await env.client.workflow.getHandle(`phase5-${run}-${stage}`).describe();
      expect(d.typedSearchAttributes.get(STAGE_ATTR), stage).to.equal(stage);
      expect(d.typedSearchAttributes.get(RUN_ATTR)).to.equal('sa');
      expect(d.typedSearchAttributes.get(CONFIG_HASH_ATTR)).to.equal('1a2b3c4d');
      expect(await d.memo).to.have.property('embedding_model');
    }
    // The sharded infer's arm child is findable by run too (it is part of the infer stage).
    const arm = await env.client.workflow.getHandle(`phase5-${run}-infer-rag`).describe();
    expect(arm.typedSearchAttributes.get(STAGE_ATTR)).to.equal('infer');
    expect(arm.typedSearchAttributes.get(RUN_ATTR)).to.equal('sa');
  });

  it('a study started without labels starts its children without them', async () => {
    const run = `plain-${Date.now()}`;
    await runStudy(run, false);
    const d = await env.client.workflow.getHandle(`phase5-${run}-build`).describe();
    expect(d.typedSearchAttributes.get(STAGE_ATTR)).to.equal(undefined);
    expect(d.typedSearchAttributes.get(RUN_ATTR)).to.equal(undefined);
  });
});
