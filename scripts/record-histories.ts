/**
 * `npm run record-histories -- <prefix>`: run a tiny real study (scripts/tiny-study.ts) and write each
 * workflow's event history to test/replay/histories/<prefix>-<workflow>.json, which test/replay/replay.test.ts
 * replays against the current workflow code. Re-record only as the versioning rule in workflows/index.ts says
 * (after a patched change, with a new prefix), keeping the old recordings that exercise the old branch.
 *
 * `npm run record-histories -- <prefix> build` records the build alone (the study workflow with only the build
 * stage, and its build child) on a study whose arms need two corpora of their own and a witness index, so the
 * recording shows the build's fan-out of those.
 *
 * `npm run record-histories -- <prefix> arms` records a whole study whose arms take the other branches of the
 * workflows: an arm of 2 replicates (a child per replicate), a collate arm (no LLM: its shards on the CPU queue)
 * and its witness index in 2 shards (the export's scatter and gather rounds).
 */
import { armNames } from '../src/stages/study/arm-names';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { historyToJson } from '../src/temporal/history-json';
import { PROJECT_ROOT } from '../src/config/load';
import { doctorWorkflow } from '../workflows';
import { runWorkflowId, stageWorkflowId } from '../workflows/types';
import type { Config } from '../src/config/schema';
import { runTinyStudy, startTinyStudy, tinyStudyConfig, type TinyStudy } from './tiny-study';

export const HISTORIES_DIR = path.join(PROJECT_ROOT, 'test', 'replay', 'histories');

async function save(study: TinyStudy, workflowId: string, file: string): Promise<void> {
  const history = await study.client.workflow.getHandle(workflowId).fetchHistory();
  const out = path.join(HISTORIES_DIR, file);
  writeFileSync(out, historyToJson(history) + '\n');
  console.log(`wrote ${path.relative(PROJECT_ROOT, out)} (${history.events?.length ?? 0} events)`);
}

/** A study whose arms need two corpora of their own (smaller samples) and a witness index over one work. */
function studyBuildsConfig(dir: string): Promise<Config> {
  return tinyStudyConfig(dir, {
    study: {
      baseline: 'zero_shot',
      arms: [
        { name: 'zero_shot', prompt: 'zero_shot' },
        { name: 'rag' },
        { name: 'small', corpus: { sample: { max_sentences: 120 } } },
        { name: 'smaller', corpus: { sample: { max_sentences: 80 } } },
        { name: 'witness', retrieval: { mode: 'witness', witness: { works: ['0292Yacqubi.Tarikh*'] } } },
      ],
    },
  });
}

async function recordBuild(prefix: string, dir: string): Promise<void> {
  const config = await studyBuildsConfig(dir);
  const study = await startTinyStudy(config);
  try {
    await runTinyStudy(study, 6, ['build']);
    mkdirSync(HISTORIES_DIR, { recursive: true });
    await save(study, runWorkflowId(config.run_name), `${prefix}-phase5.json`);
    await save(study, stageWorkflowId(config.run_name, 'build'), `${prefix}-build.json`);
  } finally {
    await study.stop();
  }
}

async function recordArms(prefix: string, dir: string): Promise<void> {
  const config = await tinyStudyConfig(dir, {
    infer: { shard_size: 3 },
    study: {
      baseline: 'zero_shot',
      arms: [
        { name: 'zero_shot', prompt: 'zero_shot' },
        { name: 'rag', replicates: 2 },
        {
          name: 'collate',
          corrector: 'collate',
          retrieval: { mode: 'witness', witness: { works: ['0276IbnQutaybaDinawari.AdabKatib*'], shards: 2 } },
        },
      ],
    },
  });
  const study = await startTinyStudy(config);
  try {
    await runTinyStudy(study);
    mkdirSync(HISTORIES_DIR, { recursive: true });
    await save(study, runWorkflowId(config.run_name), `${prefix}-phase5.json`);
    for (const stage of ['export', 'infer'] as const) await save(study, stageWorkflowId(config.run_name, stage), `${prefix}-${stage}.json`);
    // One child workflow per arm and replicate, as the infer history started them.
    const inferId = stageWorkflowId(config.run_name, 'infer');
    const infer = await study.client.workflow.getHandle(inferId).fetchHistory();
    for (const e of infer.events ?? []) {
      const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (child) await save(study, child, `${prefix}-infer-arm-${child.slice(inferId.length + 1).replace('#', '.r')}.json`);
    }
  } finally {
    await study.stop();
  }
}

async function main(): Promise<void> {
  const prefix = process.argv[2] ?? 'v2';
  if (!/^[a-z0-9-]+$/.test(prefix)) throw new Error(`prefix must be lower-case letters, digits and "-", got "${prefix}"`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'record-histories-'));
  if (process.argv[3] === 'build' || process.argv[3] === 'arms') {
    await (process.argv[3] === 'build' ? recordBuild : recordArms)(prefix, dir);
    return rmSync(dir, { recursive: true, force: true });
  }
  // 3 export shards through a window of 2, so the recording shows the window at work. Infer: 3 study arms of
  // three 2-line shards (one export: the arms differ only in the prompt) through the pool's 2 lanes: two arms
  // start, the third waits for the first to finish, then gets the second's lane too (the setWindow signal).
  const config = await tinyStudyConfig(dir, {
    temporal: { max_parallel_activities: 2, concurrency: { gpu: 2 } },
    infer: { shard_size: 2 },
    study: { baseline: 'zero_shot', arms: [{ name: 'zero_shot', prompt: 'zero_shot' }, { name: 'rag' }, { name: 'rag_b' }] },
  });
  const study = await startTinyStudy(config);
  try {
    await runTinyStudy(study);
    const queues = [config.temporal.queues.cpu, config.temporal.queues.gpu];
    const doctorId = `doctor-${config.run_name}`;
    await study.client.workflow.execute(doctorWorkflow, {
      taskQueue: queues[0],
      workflowId: doctorId,
      args: [{ queues, resultsDir: dir, pickupTimeout: '30s' }],
    });
    mkdirSync(HISTORIES_DIR, { recursive: true });
    await save(study, runWorkflowId(config.run_name), `${prefix}-phase5.json`);
    for (const stage of ['build', 'export', 'infer', 'analyze'] as const)
      await save(study, stageWorkflowId(config.run_name, stage), `${prefix}-${stage}.json`);
    // One child workflow per arm.
    for (const arm of armNames(config, {}))
      await save(study, `${stageWorkflowId(config.run_name, 'infer')}-${arm}`, `${prefix}-infer-arm-${arm}.json`);
    await save(study, doctorId, `${prefix}-doctor.json`);
  } finally {
    await study.stop();
  }
  rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
