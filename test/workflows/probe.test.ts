/**
 * `phase5 probe`'s workflow on a real local Temporal server with the local GGUF model (SmolLM2-135M) on the demo
 * config's three books, a pilot of two lines each: every job runs on the GPU queue, memorisation.json holds the
 * figures the checks read, the likelihood test is exact (the full vocabulary's logits), and a second run resumes
 * every probe text from the files instead of asking the model again.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { Memorisation } from '../../analysis/probe/memorisation';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { loadConfig } from '../../src/config/load';
import { probeWorkflow } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { OCR_GS_ROOT, REPO_ROOT, requireSharedData } from '../helpers/shared-data';
import { createLocalEnv } from '../helpers/temporal';

const BOOKS = {
  'OCR_GS-IbnQutayba.Adab': 'book_IbnQutayba.Adab',
  'OCR_GS-Yacqubi.Tarikh': 'book_Yacqubi.Tarikh',
  'OCR_GS-Jahiz.Hayawan': 'book_Jahiz.Hayawan',
};

describe('probe workflow with the local GGUF model on the demo books (local Temporal server)', function () {
  this.timeout(25 * 60_000);
  let env: TestWorkflowEnvironment;
  before(async function () {
    requireSharedData(this, 'ocr-gs');
    env = await createLocalEnv();
  });
  after(async () => env?.teardown());

  it('probes each book and its shuffled control, writes memorisation.json, and resumes from its files', async () => {
    const { config } = loadConfig(path.join(REPO_ROOT, 'configs', 'demo.yaml'));
    const stamp = Date.now();
    config.paths.results_dir = mkdtempSync(path.join(os.tmpdir(), 'probe-wf-'));
    for (const [key, dir] of Object.entries(BOOKS)) config.datasets[key].path = path.join(OCR_GS_ROOT, dir);
    config.temporal.queues = { cpu: `probe-cpu-${stamp}`, gpu: `probe-gpu-${stamp}` };
    const gpuTasks: string[] = [];
    const acts = createActivities();
    const counted = Object.fromEntries(
      Object.entries(acts).map(([name, fn]) => [
        name,
        (...a: unknown[]) => (gpuTasks.push(name), (fn as (...x: unknown[]) => unknown)(...a)),
      ]),
    );
    const bundle = await workflowBundle();
    const cpu = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: config.temporal.queues.cpu,
      workflowBundle: bundle,
      activities: acts,
    });
    const gpu = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: config.temporal.queues.gpu,
      workflowBundle: bundle,
      activities: counted,
    });
    const input: StageInput = { run: `probe-${stamp}`, config, options: { sample: { lines: 2, seed: 1 } }, force: false };
    const run = (id: string) =>
      env.client.workflow.execute(probeWorkflow, { taskQueue: config.temporal.queues.cpu, workflowId: id, args: [input] });
    // Both runs under one pair of workers (a worker stops when its runUntil ends): the second finds every text in the files.
    const [first, again] = await cpu.runUntil(
      gpu.runUntil(async () => [await run(`probe-${stamp}-a`), await run(`probe-${stamp}-b`)] as const),
    );
    expect(gpuTasks).to.deep.equal(Array(6).fill('probeJob'));
    expect(first.jobs.map((j) => [j.units, j.resumed, j.likelihoodSkipped])).to.deep.equal([
      [4, 0, null],
      [4, 0, null],
      [4, 0, null],
    ]);
    const file = first.memorisation.file;
    const bytes = readFileSync(file, 'utf8');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Memorisation;
    for (const key of Object.keys(BOOKS)) {
      const e = doc.datasets[key]['SmolLM2-135M-Instruct.Q4_1'];
      expect(e.continuation.verbatim_share).to.be.a('number');
      expect(e.control.verbatim_share).to.be.a('number');
      expect(e.control.source).to.equal('shuffled');
      expect(e.continuation.reason, 'one cluster per book: no interval').to.match(/cluster/);
      expect('skipped' in e.likelihood ? e.likelihood.skipped : e.likelihood.exact).to.equal(true);
    }
    expect(again.jobs.map((j) => j.resumed)).to.deep.equal([4, 4, 4]);
    expect(readFileSync(file, 'utf8')).to.equal(bytes);
  });
});
