/**
 * The plan and merge activities of the export and the infer read or write whole files: each heartbeats while it
 * runs (keptAlive, activities/context.ts). Each runs here, as the worker runs it (real activities, local Temporal
 * server), on a large synthetic input under a 1 s heartbeat timeout and a single attempt. Without its heartbeats
 * the server takes the busy worker for a dead one and the activity fails with a heartbeat timeout.
 */
import { expect } from 'chai';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { indexFiles } from '../../src/index/manifest';
import * as exporter from '../../src/stages/export';
import { stagePaths } from '../../src/stages/study-layout';
import * as inference from '../../src/stages/infer';
import { partFile, planInfer, type ArmPlan } from '../../src/stages/infer-shards';
import type { StageInput } from '../../src/stages/types';
import { inferenceInputRecord } from '../helpers/records';
import { REPO_ROOT } from '../helpers/shared-data';
import { createLocalEnv } from '../helpers/temporal';
import type { oneActivityWorkflow } from './one-activity-workflow';

/** Lines enough that each plan / merge outlasts the heartbeat timeout twice over on this 2-core machine, quiet or shared (planInfer: about 1.8 s for 200,000 on a quiet one). */
const LINES = Number(process.env.HEARTBEAT_TEST_LINES ?? 300_000);
/** Each line's text (a few hundred characters, as an OCR line with its retrieved context): bytes to parse and copy. */
const text = (id: string) => `${id} ${'قال أبو عثمان رحمه الله '.repeat(Number(process.env.HEARTBEAT_TEST_REPEAT ?? 20))}`;
const HEARTBEAT_TIMEOUT = '1s';

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

describe('workflows: long plan and merge activities heartbeat (1 s heartbeat timeout, one attempt)', function () {
  this.timeout(300000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let results: string;
  let input: StageInput;
  const ids = Array.from({ length: LINES }, (_, i) => `s${i}`);

  before(async () => {
    env = await createLocalEnv();
    bundle = await bundleWorkflowCode({
      workflowsPath: path.join(REPO_ROOT, 'test', 'workflows', 'one-activity-workflow.ts'),
      logger: quiet,
    });
    results = mkdtempSync(path.join(os.tmpdir(), 'stage-heartbeats-'));
    const dataset = path.join(results, 'big.jsonl');
    const config: Config = parseConfig(
      { paths: { results_dir: results }, datasets: { d: { type: 'jsonl', path: dataset } }, infer: { arms: ['rag'] } },
      'stage-heartbeats test',
      { env: {} },
    );
    // An index is only looked for by the export plan (its manifest is part of the export's fingerprint).
    const { index } = stagePaths(config, {});
    mkdirSync(path.dirname(index), { recursive: true });
    writeFileSync(index, '');
    writeFileSync(indexFiles(index).manifest, '{}');
    writeLines(dataset, (id) => ({ sample_id: id, ocr_text: text(id), gt_text: text(id) }));
    const input0 = path.join(results, 'arms', 'rag', 'inference_input.jsonl');
    mkdirSync(path.dirname(input0), { recursive: true });
    writeLines(input0, (id) => ({ ...inferenceInputRecord(id), ocr_text: text(id) }));
    input = { run: 'hb', config, options: {}, force: false };
  });
  after(async () => {
    await env?.teardown();
    if (results) rmSync(results, { recursive: true, force: true });
  });

  /**
   * One JSON line per id into `file`, 5,000 at a time: the files are hundreds of MB, and building each as one
   * string would leave that much garbage for the collector to clear while the activities under test run.
   */
  function writeLines(file: string, record: (id: string) => object): void {
    writeFileSync(file, '');
    for (let i = 0; i < ids.length; i += 5000)
      appendFileSync(
        file,
        ids
          .slice(i, i + 5000)
          .map((id) => JSON.stringify(record(id)) + '\n')
          .join(''),
      );
  }

  /** Run one real activity in a worker under the short heartbeat timeout; returns its result and seconds taken. */
  async function runActivity<T>(name: string, args: unknown[]): Promise<{ result: T; seconds: number }> {
    const queue = `stage-heartbeats-${name}-${Date.now()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: bundle,
      activities: createActivities(),
      maxHeartbeatThrottleInterval: '300ms',
      defaultHeartbeatThrottleInterval: '300ms',
    });
    const t0 = Date.now();
    const result = await worker.runUntil(
      env.client.workflow.execute<typeof oneActivityWorkflow>('oneActivityWorkflow', {
        taskQueue: queue,
        workflowId: queue,
        args: [name, args, HEARTBEAT_TIMEOUT],
      }),
    );
    const seconds = (Date.now() - t0) / 1000;
    // The case is only a test of the heartbeat when the activity outlasts the timeout.
    expect(seconds, `${name} took longer than the heartbeat timeout`).to.be.above(2);
    return { result: result as T, seconds };
  }

  it(`planExport: plans a ${LINES.toLocaleString('en-US')}-line dataset`, async () => {
    const { result } = await runActivity<exporter.ExportPlan>('planExport', [input]);
    expect(result.datasets.map((d) => d.samples)).to.deep.equal([LINES]);
  });

  it(`mergeExport: merges the shards of ${LINES.toLocaleString('en-US')} lines`, async () => {
    // The plan in-process (the stage function), so this case does not depend on the one before.
    const exportPlan = await exporter.planExport(exporter.optionsFrom(input.config, input.options));
    for (const shard of exportPlan.datasets[0].shards) {
      const file = exporter.shardFile(input.config, shard);
      mkdirSync(path.dirname(file), { recursive: true });
      const lines = ids.slice(shard.start, shard.end).map((id) => JSON.stringify({ ...inferenceInputRecord(id), ocr_text: text(id) }));
      writeFileSync(file, lines.join('\n') + '\n');
      writeFileSync(`${file}.done.json`, '{}');
    }
    const { result } = await runActivity<exporter.ExportMergeResult>('mergeExport', [{ input, plan: exportPlan }]);
    expect(result.records).to.equal(LINES);
  });

  it(`planInfer: plans ${LINES.toLocaleString('en-US')} input lines`, async () => {
    const { result } = await runActivity<ArmPlan[]>('planInfer', [input]);
    expect(result.map((a) => [a.arm, a.lines])).to.deep.equal([['rag', LINES]]);
  });

  it(`mergeInferArm: merges an arm of ${LINES.toLocaleString('en-US')} lines from its parts`, async () => {
    const [arm] = await planInfer(inference.optionsFrom(input.config, input.options));
    for (let index = 0; index * arm.shardSize < LINES; index++) {
      const part = ids.slice(index * arm.shardSize, (index + 1) * arm.shardSize).map((id) =>
        JSON.stringify({
          sample_id: id,
          dataset: 'd',
          prompt_type: 'rag',
          ocr_text: text(id),
          gt_text: text(id),
          corrected_text: text(id),
          error: null,
        }),
      );
      writeFileSync(partFile(arm.output, 'd', index), part.join('\n') + '\n');
    }
    const { result } = await runActivity<{ records: number; failed: number }>('mergeInferArm', [{ input, arm }]);
    expect(result).to.include({ records: LINES, failed: 0 });
  });
});
