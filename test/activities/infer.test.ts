/**
 * The infer adapters through MockActivityEnvironment, with a deterministic LLM double passed to
 * createActivities: progress heartbeats, cancellation mid-condition, resume that calls the model only for the
 * lines still missing, and non-retryable failures for input the user must fix.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';

import { resultDirs } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { echoBackend, fixtureConfig, Gate, recordingEnv, stageInput, tmpResults, until } from './helpers';
import { LlmError, type LlmBackend } from '../../src/llm';
import { createStageCalls } from '../helpers/stage-calls';

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

/** inference_input.jsonl with `n` RAG records. */
function writeInput(config: Config, n: number): string {
  const file = path.join(resultDirs(config).arms, 'rag', 'inference_input.jsonl');
  mkdirSync(path.dirname(file), { recursive: true });
  const records = Array.from({ length: n }, (_, i) => ({
    sample_id: `s${i}`,
    dataset: 'demo',
    ocr_text: `سطر رقم ${i}`,
    gt_text: `سطر رقم ${i}`,
    prompt_type: 'rag',
    prompt_version: 'p5v1',
    retrieval_context: 'نصوص مرجعية صحيحة:\n1. مرجع',
    retrieved_k: 1,
    retrieval_scores: [0.9],
    retrieval_sources: [],
  }));
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

describe('activities/infer (adapters over src/stages/infer)', () => {
  it('corrects every line with progress heartbeats and writes corrections.jsonl', async () => {
    const config = fixtureConfig(tmpResults('infer'));
    writeInput(config, 6);
    const backend = echoBackend();
    const acts = createStageCalls({
      openRetriever: async () => {
        throw new Error('unused');
      },
      openBackend: async () => backend,
    });
    const { beats, run } = recordingEnv();
    const result = await run(acts.inferArm, { input: stageInput(config), arm: 'rag' });
    expect(result).to.deep.include({ arm: 'rag', written: 6, succeeded: 6, failed: 0, model: 'echo' });
    expect(backend.calls).to.equal(6);
    expect(beats.some((b) => b.step === 'infer:rag' && b.unit === 'samples')).to.equal(true);
    expect(lines(result.output)).to.have.length(6);
  });

  it('a cancelled condition stops; the next attempt calls the model only for the missing lines', async () => {
    const config = fixtureConfig(tmpResults('infer-cancel'));
    writeInput(config, 8);
    const gate = new Gate(3);
    const backend = echoBackend(gate);
    const acts = createStageCalls({
      openRetriever: async () => {
        throw new Error('unused');
      },
      openBackend: async () => backend,
    });
    const first = recordingEnv();
    const running = first.run(acts.inferArm, { input: stageInput(config), arm: 'rag' });
    await until(() => backend.calls === 3);
    first.env.cancel();
    gate.open();
    const err = await running.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, 'the cancelled attempt must not complete').to.be.instanceOf(Error);
    const output = path.join(resultDirs(config).arms, 'rag', 'corrections.jsonl');
    const written = lines(output).length;
    expect(written).to.be.within(3, 7);

    const callsBefore = backend.calls;
    const second = recordingEnv({ heartbeatDetails: first.beats.at(-1) });
    const result = await second.run(acts.inferArm, { input: stageInput(config), arm: 'rag' });
    // Safety net: without resume every line would be sent to the model again.
    expect(backend.calls - callsBefore).to.equal(8 - written);
    expect(result).to.deep.include({ written: 8 - written, skippedExisting: written });
    expect(
      lines(output)
        .map((l) => JSON.parse(l).sample_id)
        .sort(),
    ).to.deep.equal(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7']);
  });

  it('an outage fails retryably and carries when it began to the next attempt; past infer.outage_budget it fails for good', async () => {
    const config = fixtureConfig(tmpResults('infer-outage'), { infer: { outage_budget: '5m' } });
    writeInput(config, 3);
    const down: LlmBackend = {
      id: 'openai:http://127.0.0.1:9/v1',
      model: 'echo',
      concurrency: 1,
      async complete() {
        throw new LlmError('connection', 'connection error (ECONNREFUSED)', null, 5);
      },
      async close() {},
    };
    const endpointDown: string[] = [];
    const acts = createStageCalls({
      openRetriever: async () => {
        throw new Error('unused');
      },
      openBackend: async () => down,
      endpointDown: (r) => endpointDown.push(r),
    });
    const first = recordingEnv();
    const retryable = await first.run(acts.inferArm, { input: stageInput(config), arm: 'rag' }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(retryable).not.to.be.instanceOf(ApplicationFailure);
    expect(retryable?.name).to.equal('LlmUnavailableError');
    const outageSince = (first.beats.at(-1)?.checkpoint as { outageSince?: string } | undefined)?.outageSince;
    expect(Date.parse(outageSince ?? '')).to.be.closeTo(Date.now(), 10_000);

    // A later attempt that still makes no progress, with the outage begun 6 minutes ago (the budget is 5).
    const sixMinutesAgo = new Date(Date.now() - 6 * 60_000).toISOString();
    const later = recordingEnv({ heartbeatDetails: { ...first.beats.at(-1), checkpoint: { outageSince: sixMinutesAgo } } });
    const final = await later.run(acts.inferArm, { input: stageInput(config), arm: 'rag' }).then(
      () => null,
      (e: unknown) => e,
    );
    // Safety net: without the budget a dead endpoint would be retried forever.
    expect(final).to.be.instanceOf(ApplicationFailure);
    expect((final as ApplicationFailure).nonRetryable).to.equal(true);
    expect((final as ApplicationFailure).type).to.equal('InferFailedError');
    expect((final as ApplicationFailure).message).to.match(
      /^infer rag: the LLM at openai:http:\/\/127\.0\.0\.1:9\/v1 has not served for 6\.0m \(infer\.outage_budget 5\.0m; last: connection: connection error \(ECONNREFUSED\)\); 3 line\(s\) left/,
    );
    expect(lines(path.join(resultDirs(config).arms, 'rag', 'corrections.jsonl'))).to.have.length(0);
    expect(endpointDown, 'both attempts were outages').to.deep.equal([retryable?.message, (final as ApplicationFailure).message]);
  });

  it('the sharded infer: plan, shards and merge heartbeat (a long plan or merge is not a dead worker)', async () => {
    const config = fixtureConfig(tmpResults('infer-sharded'), { infer: { shard_size: 4, arms: ['rag'] } });
    writeInput(config, 6);
    const acts = createStageCalls({
      openRetriever: async () => {
        throw new Error('unused');
      },
      openBackend: async () => echoBackend(),
    });
    const plan = recordingEnv();
    const [arm] = await plan.run(acts.planInfer, stageInput(config));
    expect(arm).to.include({ arm: 'rag', lines: 6, shards: 2 });
    expect(plan.beats.map((b) => b.step)).to.include('infer:plan');
    for (const index of [0, 1])
      await recordingEnv().run(acts.inferShard, { input: stageInput(config), arm, shard: { dataset: 'demo', index } });
    const merge = recordingEnv();
    const merged = await merge.run(acts.mergeInferArm, { input: stageInput(config), arm });
    expect(merged.records).to.equal(6);
    expect(merge.beats.map((b) => b.step)).to.include('infer:merge:rag');
    expect(lines(merged.output).map((l) => JSON.parse(l).sample_id)).to.deep.equal(['s0', 's1', 's2', 's3', 's4', 's5']);
  });

  it('a shard that fails for an outage tells deps.endpointDown (the worker’s endpoint gate); other failures do not', async () => {
    const config = fixtureConfig(tmpResults('infer-endpoint-down'), { infer: { shard_size: 4, arms: ['rag'] } });
    writeInput(config, 6);
    let refuse = true;
    const echo = echoBackend();
    const box: LlmBackend = {
      id: 'openai:http://127.0.0.1:9/v1',
      model: 'echo',
      concurrency: 1,
      async complete(m, o) {
        if (refuse) throw new LlmError('connection', 'connection error (ECONNREFUSED)', null, 1);
        return echo.complete(m, o);
      },
      async close() {},
    };
    const down: string[] = [];
    const acts = createStageCalls({
      openRetriever: async () => {
        throw new Error('unused');
      },
      openBackend: async () => box,
      endpointDown: (r) => down.push(r),
    });
    const [arm] = await recordingEnv().run(acts.planInfer, stageInput(config));
    const shard = { input: stageInput(config), arm, shard: { dataset: 'demo', index: 0 } };
    const failed = await recordingEnv()
      .run(acts.inferShard, shard)
      .then(
        () => null,
        (e: unknown) => e as Error,
      );
    expect(failed?.name).to.equal('LlmUnavailableError');
    expect(down).to.deep.equal([failed?.message]);
    expect(down[0]).to.match(/^infer rag: LLM endpoint not serving \(connection: /);

    refuse = false;
    await recordingEnv().run(acts.inferShard, shard);
    const missing = await recordingEnv()
      .run(acts.inferShard, { ...shard, shard: { dataset: 'demo', index: 7 } })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(missing).to.be.instanceOf(ApplicationFailure); // no lines for that shard: the user's input, not the endpoint
    expect(down, 'only the outage').to.have.length(1);
  });

  it('fails without retries when there is no inference input, and when an import file is malformed', async () => {
    const config = fixtureConfig(tmpResults('infer-bad'));
    const acts = createStageCalls({
      openRetriever: async () => {
        throw new Error('unused');
      },
      openBackend: async () => echoBackend(),
    });
    const noInput = await acts.inferArm({ input: stageInput(config), arm: 'rag' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(noInput).to.be.instanceOf(ApplicationFailure);
    expect((noInput as ApplicationFailure).nonRetryable).to.equal(true);
    expect((noInput as ApplicationFailure).message).to.match(/inference_input\.jsonl — run `phase5 export` first/);

    const bad = path.join(config.paths.results_dir, 'bad.jsonl');
    writeFileSync(bad, '{"sample_id": "x"\n');
    const input = { ...stageInput(config), options: { importFile: bad } };
    const rejected = await acts.importCorrections(input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(rejected).to.be.instanceOf(ApplicationFailure);
    expect((rejected as ApplicationFailure).nonRetryable).to.equal(true);
    expect((rejected as ApplicationFailure).message).to.match(/import rejected — .*bad\.jsonl/);
  });
});
