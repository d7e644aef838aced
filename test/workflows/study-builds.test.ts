/**
 * The build's fan-out of the study's own corpora and witness indexes: one activity
 * per distinct arm corpus and per witness index, run at the same time on the CPU workers beside the run's own
 * corpus and index. Real workflow on a local Temporal server, stand-in activities that take a while and record
 * when they run.
 */
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import type { IndexResult } from '../../src/stages/build/build';
import type { StudyBuilds } from '../../src/stages/study/builds';
import { buildWorkflow } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { createLocalEnv } from '../helpers/temporal';

const BUILD_MS = 1500;

interface Run {
  what: string;
  start: number;
  end: number;
}

const index = (indexPath: string): IndexResult => ({ indexPath, vectors: 3, dims: 4, model: 'm', indexType: 'FlatIP' });

function standIns(todo: StudyBuilds, runs: Run[]) {
  const timed = async <T>(what: string, value: T): Promise<T> => {
    const start = Date.now();
    await new Promise((r) => setTimeout(r, BUILD_MS));
    runs.push({ what, start, end: Date.now() });
    return value;
  };
  return {
    planStudyBuilds: async () => todo,
    buildRunCorpus: async () => ({ corpusPath: '/run/corpus.jsonl', reused: true, sentences: 3 }),
    planIndexShards: async () => ({ reused: index('/run/index.usearch') }),
    buildStudyCorpus: ({ fingerprint }: { fingerprint: string }) =>
      timed(`corpus:${fingerprint}`, index(`/corpora/${fingerprint}/index.usearch`)),
    buildStudyWitnessIndex: ({ fingerprint }: { fingerprint: string }) => timed(`witness:${fingerprint}`, `/witness/${fingerprint}`),
  };
}

describe('build workflow: one activity per study corpus and witness index, at the same time (real local Temporal server)', function () {
  this.timeout(120000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await createLocalEnv();
    await workflowBundle();
  });
  after(async () => env?.teardown());

  it('two corpora are built by two activities that overlap in time; the result names each by fingerprint', async () => {
    const queue = `study-builds-${Date.now()}`;
    const todo: StudyBuilds = {
      corpora: [
        { fingerprint: 'aaaa', arms: ['similar'] },
        { fingerprint: 'bbbb', arms: ['with_sources', 'with_sources_k1'] },
      ],
      witnessIndexes: [],
    };
    const runs: Run[] = [];
    const config = parseConfig({ temporal: { queues: { cpu: queue, gpu: queue } } }, 'test', { env: {} });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: standIns(todo, runs),
    });
    const input: StageInput = { run: queue, config, options: {}, force: false };
    const result = await worker.runUntil(
      env.client.workflow.execute(buildWorkflow, { taskQueue: queue, workflowId: `phase5-${queue}-build`, args: [input] }),
    );

    expect(runs.map((r) => r.what).sort()).to.deep.equal(['corpus:aaaa', 'corpus:bbbb']);
    const [a, b] = runs;
    expect(a.start < b.end && b.start < a.end, `overlapping runs: ${JSON.stringify(runs)}`).to.equal(true);
    expect(result.index.indexPath).to.equal('/run/index.usearch');
    expect(result.corpora).to.deep.equal({ aaaa: index('/corpora/aaaa/index.usearch'), bbbb: index('/corpora/bbbb/index.usearch') });
    expect(result.witnessIndexes).to.equal(undefined);
  });

  it('a corpus and a witness index run at the same time too; without either, no study field in the result', async () => {
    const queue = `study-builds-w-${Date.now()}`;
    const runs: Run[] = [];
    const config = parseConfig({ temporal: { queues: { cpu: queue, gpu: queue } } }, 'test', { env: {} });
    const run = async (todo: StudyBuilds) => {
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue: queue,
        workflowBundle: await workflowBundle(),
        activities: standIns(todo, runs),
      });
      const input: StageInput = { run: queue, config, options: {}, force: false };
      const id = `phase5-${queue}-${todo.corpora.length}-build`;
      return worker.runUntil(env.client.workflow.execute(buildWorkflow, { taskQueue: queue, workflowId: id, args: [input] }));
    };
    const both = await run({
      corpora: [{ fingerprint: 'cccc', arms: ['c'] }],
      witnessIndexes: [{ fingerprint: 'wwww', arms: ['witness'] }],
    });
    expect(both.witnessIndexes).to.deep.equal({ wwww: '/witness/wwww' });
    const [x, y] = runs;
    expect(x.start < y.end && y.start < x.end, `overlapping runs: ${JSON.stringify(runs)}`).to.equal(true);
    const none = await run({ corpora: [], witnessIndexes: [] });
    expect(none).to.have.keys(['corpus', 'index']);
  });
});
