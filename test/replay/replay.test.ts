/**
 * Replay: every recorded history in test/replay/histories (written by `npm run record-histories`) must replay
 * against the current workflow code without a determinism violation. A workflow change that alters the
 * commands a workflow issues, without `patched()`, fails here. The positive controls replay histories against
 * copies of the code from before a patch (and one with the build activities reordered) and expect that to fail.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { historyFromJson, type History } from '../../src/temporal/history-json';
import { runWorkflowId, stageWorkflowId } from '../../src/temporal/types';
import type { StageName } from '../../src/config/schema';
import { installTestRuntime } from '../helpers/temporal';
import { REPO_ROOT } from '../helpers/shared-data';

const HISTORIES = path.join(REPO_ROOT, 'test', 'replay', 'histories');
const RECORDED_RUN = 'tiny';
const FILES = readdirSync(HISTORIES)
  .filter((f) => f.endsWith('.json'))
  .sort();

function loadHistory(file: string): History {
  return historyFromJson(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')));
}

/** The id the recorded workflow ran under (scripts/record-histories.ts, run 'tiny'): the sharded infer names its arm children after it. */
function recordedWorkflowId(file: string): string {
  const name = file.replace(/^v\d+-/, '').replace(/\.json$/, '');
  if (name === 'phase5') return runWorkflowId(RECORDED_RUN);
  if (name === 'doctor') return `doctor-${RECORDED_RUN}`;
  const arm = /^infer-arm-(.+)$/.exec(name);
  if (arm) return `${stageWorkflowId(RECORDED_RUN, 'infer')}-${arm[1]}`;
  return stageWorkflowId(RECORDED_RUN, name as StageName);
}

async function replay(bundle: WorkflowBundleWithSourceMap, file: string): Promise<void> {
  await Worker.runReplayHistory({ workflowBundle: bundle }, loadHistory(file), recordedWorkflowId(file));
}

describe('replay: recorded histories against the current workflow code', function () {
  this.timeout(180000);
  let current: WorkflowBundleWithSourceMap;

  before(async () => {
    installTestRuntime();
    current = await workflowBundle();
  });

  it('has a recording of every workflow type, before (v1) and after (v2) the bounded export fan-out, after the sharded build and infer (v3), after the infer pool (v4), and a build after the study-builds fan-out (v5)', () => {
    for (const version of ['v1', 'v2']) {
      for (const name of ['phase5', 'build', 'export', 'infer', 'analyze', 'doctor']) expect(FILES).to.include(`${version}-${name}.json`);
    }
    // v3: after the sharded build and infer, with the per-arm infer children.
    for (const name of ['phase5', 'build', 'export', 'infer', 'infer-arm-rag', 'infer-arm-zero_shot', 'analyze', 'doctor'])
      expect(FILES).to.include(`v3-${name}.json`);
    // v4: the infer pool, on a study of three arms through two lanes.
    for (const name of [
      'phase5',
      'build',
      'export',
      'infer',
      'infer-arm-zero_shot',
      'infer-arm-rag',
      'infer-arm-rag_b',
      'analyze',
      'doctor',
    ])
      expect(FILES).to.include(`v4-${name}.json`);
    // v5: the build alone (study workflow with the build stage) on a study with two arm corpora and a witness index.
    for (const name of ['phase5', 'build']) expect(FILES).to.include(`v5-${name}.json`);
    const types = FILES.map((f) => loadHistory(f).events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name);
    expect(new Set(types)).to.deep.equal(
      new Set([
        'phase5Workflow',
        'buildWorkflow',
        'exportWorkflow',
        'inferWorkflow',
        'inferArmWorkflow',
        'analyzeWorkflow',
        'doctorWorkflow',
      ]),
    );
  });

  for (const file of FILES) {
    it(`replays ${file} without a determinism violation`, async () => {
      await replay(current, file);
    });
  }

  it('the v2 export history carries the bounded-export-fanout patch marker and runs 3 shards through a window of 2', () => {
    const markers = (file: string) =>
      (loadHistory(file).events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
    expect(markers('v1-export.json')).to.have.length(0);
    expect(markers('v2-export.json')).to.have.length(1);
    expect(scheduledShardBatches(loadHistory('v1-export.json'))).to.deep.equal([3]);
    expect(scheduledShardBatches(loadHistory('v2-export.json'))).to.deep.equal([2, 1]);
  });

  it('control: the v2 export history fails replay against the code from before the window; v1 replays', async () => {
    const unbounded = await bundleWorkflowCode({
      workflowsPath: path.join(REPO_ROOT, 'test', 'replay', 'unbounded-export-workflows.ts'),
      logger: silentLogger,
    });
    const err = await replay(unbounded, 'v2-export.json').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(DeterminismViolationError);
    await replay(unbounded, 'v1-export.json');
  });

  it('control: the v3 infer history fails replay against the code from before the sharded infer; v2 replays', async () => {
    const unsharded = await bundleWorkflowCode({
      workflowsPath: path.join(REPO_ROOT, 'test', 'replay', 'unsharded-infer-workflows.ts'),
      logger: silentLogger,
    });
    const err = await replay(unsharded, 'v3-infer.json').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(DeterminismViolationError);
    await replay(unsharded, 'v2-infer.json');
  });

  it("the v4 infer history runs 3 arms through the pool of 2 lanes: the third arm waits for a lane, then gets the second arm's by signal", () => {
    const markers = (file: string) =>
      (loadHistory(file).events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
    expect(markers('v3-infer.json'), 'sharded-infer').to.have.length(1);
    expect(markers('v4-infer.json'), 'sharded-infer, infer-pool').to.have.length(2);
    const steps = (loadHistory('v4-infer.json').events ?? []).flatMap((e) => {
      const started = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (started) return [`start ${started.replace(/^.*-infer-/, '')}`];
      if (e.childWorkflowExecutionCompletedEventAttributes)
        return [`done ${e.childWorkflowExecutionCompletedEventAttributes.workflowExecution?.workflowId?.replace(/^.*-infer-/, '')}`];
      const signal = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
      if (signal) return [`signal ${signal.workflowExecution?.workflowId?.replace(/^.*-infer-/, '')} ${signal.signalName}`];
      return [];
    });
    const [first, second] = steps.filter((s) => s.startsWith('done ')).map((s) => s.slice(5));
    expect(steps).to.deep.equal([
      'start zero_shot',
      'start rag',
      `done ${first}`,
      'start rag_b',
      `done ${second}`,
      'signal rag_b setWindow',
      'done rag_b',
    ]);
    // rag_b, started with 1 lane, runs a second shard as soon as the signal arrives, before its first is done.
    const arm = (loadHistory('v4-infer-arm-rag_b.json').events ?? []).map(
      (e) =>
        e.workflowExecutionSignaledEventAttributes?.signalName ??
        e.activityTaskScheduledEventAttributes?.activityType?.name ??
        (e.activityTaskCompletedEventAttributes ? 'completed' : null),
    );
    expect(arm.filter((x) => x).slice(0, 3)).to.deep.equal(['inferShard', 'setWindow', 'inferShard']);
  });

  it('control: the v4 infer history fails replay against the code from before the infer pool; v3 replays', async () => {
    const unpooled = await bundleWorkflowCode({
      workflowsPath: path.join(REPO_ROOT, 'test', 'replay', 'unpooled-infer-workflows.ts'),
      logger: silentLogger,
    });
    const err = await replay(unpooled, 'v4-infer.json').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(DeterminismViolationError);
    await replay(unpooled, 'v3-infer.json');
  });

  it("the v5 build history schedules both arm corpora and the witness index in one workflow task, beside the run's corpus", () => {
    const events = loadHistory('v5-build.json').events ?? [];
    expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).to.have.length(1);
    const batches: string[][] = [];
    for (const e of events) {
      if (e.workflowTaskCompletedEventAttributes) batches.push([]);
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name) batches[batches.length - 1].push(name);
    }
    expect(batches.filter((b) => b.length > 0)[1]).to.deep.equal([
      'buildRunCorpus',
      'buildStudyCorpus',
      'buildStudyCorpus',
      'buildStudyWitnessIndex',
    ]);
  });

  it('control: the v5 build history fails replay against the code from before the study-builds fan-out; v4 replays', async () => {
    const unfanned = await bundleWorkflowCode({
      workflowsPath: path.join(REPO_ROOT, 'test', 'replay', 'unfanned-build-workflows.ts'),
      logger: silentLogger,
    });
    const err = await replay(unfanned, 'v5-build.json').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(DeterminismViolationError);
    await replay(unfanned, 'v4-build.json');
  });

  it('control: the build histories fail replay against a copy that runs buildIndex before buildCorpus', async () => {
    const reordered = await bundleWorkflowCode({
      workflowsPath: path.join(REPO_ROOT, 'test', 'replay', 'reordered-workflows.ts'),
      logger: silentLogger,
    });
    const buildFiles = FILES.filter((f) => f.endsWith('-build.json'));
    expect(buildFiles).to.not.be.empty;
    for (const file of buildFiles) {
      const err = await replay(reordered, file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, file).to.be.instanceOf(DeterminismViolationError);
      expect(String((err as Error).message)).to.match(/buildCorpus|buildIndex|nondetermin/i);
    }
  });
});

/** How many exportShard activities each workflow task scheduled, in order. */
function scheduledShardBatches(history: History): number[] {
  const batches: number[] = [];
  for (const e of history.events ?? []) {
    if (e.workflowTaskCompletedEventAttributes) batches.push(0);
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'exportShard') batches[batches.length - 1]++;
  }
  return batches.filter((n) => n > 0);
}

const silentLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
