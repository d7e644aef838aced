/**
 * Replay: every recorded history in test/replay/histories (written by `npm run record-histories`) must replay
 * against the current workflow code without a determinism violation. A workflow change that alters the
 * commands a workflow issues, without a patch, fails here (the versioning rule: workflows/index.ts). The
 * positive control replays the build histories against a copy of the code with the build's activities in
 * another order and expects that to fail.
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
  const name = file.replace(/^v\d+[a-z]?-/, '').replace(/\.json$/, '');
  if (name === 'phase5') return runWorkflowId(RECORDED_RUN);
  if (name === 'doctor') return `doctor-${RECORDED_RUN}`;
  const arm = /^infer-arm-(.+)$/.exec(name);
  if (arm) return `${stageWorkflowId(RECORDED_RUN, 'infer')}-${arm[1].replace(/\.r(\d+)$/, '#$1')}`; // rag.r1: replicate 1 of rag
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

  it('has a recording of every workflow type in each generation (v1: the first release; v2: after the config took one vocabulary)', () => {
    for (const gen of ['v1', 'v2']) {
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
        expect(FILES).to.include(`${gen}-${name}.json`);
      for (const name of ['phase5', 'build']) expect(FILES).to.include(`${gen}b-${name}.json`);
      for (const name of ['phase5', 'export', 'infer', 'infer-arm-rag', 'infer-arm-rag.r1', 'infer-arm-collate'])
        expect(FILES).to.include(`${gen}c-${name}.json`);
    }
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

  it('versioning starts at 1.0: no recorded history carries a patch marker', () => {
    for (const file of FILES) {
      const markers = (loadHistory(file).events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
      expect(markers, file).to.have.length(0);
    }
  });

  for (const file of FILES) {
    it(`replays ${file} without a determinism violation`, async () => {
      await replay(current, file);
    });
  }

  it('the v1 export history runs 3 shards through a window of 2', () => {
    expect(scheduledShardBatches(loadHistory('v1-export.json'))).to.deep.equal([2, 1]);
  });

  it("the v1 infer history runs 3 arms through the pool of 2 lanes: the third arm waits for a lane, then gets the second arm's by signal", () => {
    const steps = (loadHistory('v1-infer.json').events ?? []).flatMap((e) => {
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
    const arm = (loadHistory('v1-infer-arm-rag_b.json').events ?? []).map(
      (e) =>
        e.workflowExecutionSignaledEventAttributes?.signalName ??
        e.activityTaskScheduledEventAttributes?.activityType?.name ??
        (e.activityTaskCompletedEventAttributes ? 'completed' : null),
    );
    expect(arm.filter((x) => x).slice(0, 3)).to.deep.equal(['inferShard', 'setWindow', 'inferShard']);
  });

  it('the v1c histories take the other branches: witness scatter rounds, a child per replicate, a collate arm on the CPU queue', () => {
    const scheduled = (file: string) =>
      (loadHistory(file).events ?? []).flatMap((e) => {
        const a = e.activityTaskScheduledEventAttributes;
        return a ? [`${a.activityType?.name}@${a.taskQueue?.name?.replace(/-\d+$/, '')}`] : [];
      });
    const exportActivities = new Set(scheduled('v1c-export.json'));
    expect([...exportActivities]).to.include.members(['witnessGather@tiny-cpu', 'witnessShardRound@tiny-cpu']);
    const children = (loadHistory('v1c-infer.json').events ?? []).flatMap((e) => {
      const id = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      return id ? [id.replace(/^.*-infer-/, '')] : [];
    });
    expect([...children].sort()).to.deep.equal(['collate', 'rag', 'rag#1', 'zero_shot']);
    expect(new Set(scheduled('v1c-infer-arm-collate.json'))).to.deep.equal(new Set(['correctShard@tiny-cpu', 'mergeInferArm@tiny-cpu']));
  });

  it("the v1b build history schedules both arm corpora and the witness index in one workflow task, beside the run's corpus", () => {
    const events = loadHistory('v1b-build.json').events ?? [];
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

  it('control: the build histories fail replay against a copy that builds the run’s corpus before planning the study’s builds', async () => {
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
      expect(String((err as Error).message)).to.match(/buildRunCorpus|planStudyBuilds|nondetermin/i);
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
