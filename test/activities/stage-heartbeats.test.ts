/**
 * The plan and merge activities of the export and the infer read or write whole files: each heartbeats while it
 * runs (keptAlive, activities/context.ts), from a keep-alive timer that fires only when the event loop turns. So
 * each must (1) heartbeat under its step's name, and (2) give the event loop back often while it works: here at
 * least once per 2,000 lines, and never run half of its CPU time or more in one stretch. Both are counted,
 * not timed against a clock — the loop's turns and the process's own CPU time between them — so the test says the
 * same on a quiet machine and on one whose cores are busy with other work. A stretch that keeps the loop longer
 * than the heartbeat timeout would let the server take the busy worker for a dead one. The last case shows the two
 * counts catch what they guard: a whole-file read with no turn, and a stage run without keptAlive.
 */
import { expect } from 'chai';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createActivities } from '../../activities';
import { keptAlive } from '../../activities/hooks';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { indexFiles } from '../../src/index/manifest';
import * as exporter from '../../src/stages/export/export';
import { stagePaths } from '../../src/stages/study/layout';
import * as inference from '../../src/stages/infer/infer';
import { partFile, planInfer } from '../../src/stages/infer/shards';
import type { StageInput } from '../../src/stages/shared/types';
import { inferenceInputRecord } from '../helpers/records';
import { recordingEnv, tmpResults } from './helpers';

/** Enough lines that each activity spends seconds of CPU, so a collector pause elsewhere in the suite is a small share. */
const LINES = 150_000;
/** Each line's text (a few hundred characters, as an OCR line with its retrieved context): bytes to parse and copy. */
const text = (id: string) => `${id} ${'قال أبو عثمان رحمه الله '.repeat(20)}`;
const LINES_PER_TURN = 2000;
const LARGEST_SHARE = 0.5;

interface LoopCounts {
  turns: number;
  /** The largest CPU time between two turns of the event loop, as a share of the CPU time of the whole run. */
  largestShare: number;
}

/** Run `work` while counting the event loop's turns and the CPU time (user + system) spent between them. */
async function counted<T>(work: () => Promise<T>): Promise<{ result: T; loop: LoopCounts }> {
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const start = cpu();
  let last = start;
  let largest = 0;
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    const now = cpu();
    largest = Math.max(largest, now - last);
    last = now;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  const result = await work();
  running = false;
  const end = cpu();
  largest = Math.max(largest, end - last);
  return { result, loop: { turns, largestShare: largest / Math.max(1, end - start) } };
}

describe('activities: long plan and merge activities heartbeat and give the event loop back', function () {
  this.timeout(300000);
  let results: string;
  let input: StageInput;
  const ids = Array.from({ length: LINES }, (_, i) => `s${i}`);

  before(() => {
    results = tmpResults('stage-heartbeats');
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
  after(() => results && rmSync(results, { recursive: true, force: true }));

  /** One JSON line per id into `file`, 5,000 at a time. */
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

  /** Run one activity in a mock activity context (a 1 s heartbeat timeout): its result, heartbeats and loop counts. */
  async function runActivity<T>(name: keyof ReturnType<typeof createActivities>, args: unknown[]) {
    const { beats, run } = recordingEnv({ heartbeatTimeoutMs: 1000 });
    const activity = createActivities()[name] as (...a: unknown[]) => Promise<T>;
    const { result, loop } = await counted(() => run(activity, ...args));
    return { result, beats, loop };
  }

  function expectKeptAlive(step: string, beats: { step: string }[], loop: LoopCounts): void {
    expect(beats.length, 'heartbeats').to.be.at.least(1);
    expect(
      beats.every((b) => b.step === step),
      JSON.stringify(beats.slice(0, 3)),
    ).to.equal(true);
    expect(loop.turns, 'event loop turns').to.be.at.least(LINES / LINES_PER_TURN);
    expect(loop.largestShare, 'largest stretch without a turn, share of CPU time').to.be.at.most(LARGEST_SHARE);
  }

  it(`planExport: plans a ${LINES.toLocaleString('en-US')}-line dataset`, async () => {
    const { result, beats, loop } = await runActivity<exporter.ExportPlan>('planExport', [input]);
    expect(result.datasets.map((d) => d.samples)).to.deep.equal([LINES]);
    expectKeptAlive('export:plan', beats, loop);
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
    const { result, beats, loop } = await runActivity<exporter.ExportMergeResult>('mergeExport', [{ input, plan: exportPlan }]);
    expect(result.records).to.equal(LINES);
    expectKeptAlive('export:merge', beats, loop);
  });

  it(`planInfer: plans ${LINES.toLocaleString('en-US')} input lines`, async () => {
    const { result, beats, loop } = await runActivity<Array<{ arm: string; lines: number }>>('planInfer', [input]);
    expect(result.map((a) => [a.arm, a.lines])).to.deep.equal([['rag', LINES]]);
    expectKeptAlive('infer:plan', beats, loop);
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
    const { result, beats, loop } = await runActivity<{ records: number; failed: number }>('mergeInferArm', [{ input, arm }]);
    expect(result).to.include({ records: LINES, failed: 0 });
    expectKeptAlive('infer:merge:rag', beats, loop);
  });

  it('the counts catch a whole-file read that keeps the loop, and a stage run without keptAlive', async () => {
    const file = path.join(results, 'big.jsonl');
    const { beats, run } = recordingEnv({ heartbeatTimeoutMs: 1000 });
    const blocking = await counted(() =>
      run(() =>
        keptAlive(
          'blocking',
          async () =>
            readFileSync(file, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l)).length,
        ),
      ),
    );
    expect(blocking.result).to.equal(LINES);
    expect(blocking.loop.largestShare).to.be.above(LARGEST_SHARE);
    expect(blocking.loop.turns).to.be.below(LINES / LINES_PER_TURN);
    const before = beats.length;
    await run(() => planInfer(inference.optionsFrom(input.config, input.options)));
    expect(beats.length - before, 'heartbeats of the stage run on its own').to.equal(0);
  });
});
