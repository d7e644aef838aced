/**
 * The export adapters through MockActivityEnvironment, with an in-memory retriever passed to
 * createActivities: heartbeats carry shard progress, cancellation stops a shard mid-way, and a new attempt
 * resumes from what the interrupted one wrote — retrieving only the samples still missing.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { createActivities } from '../../activities';
import type { Config } from '../../src/config/schema';
import type { InferenceInputRecord } from '../../src/llm/records';
import { shardFile } from '../../src/stages/export/export';
import type { ExportRetriever } from '../../src/stages/build/retriever';
import {
  countingRetriever,
  echoBackend,
  fakeIndexFiles,
  fixtureConfig,
  Gate,
  recordingEnv,
  stageInput,
  tmpResults,
  until,
} from './helpers';

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** The first planned shard of `config`, with a retriever that holds after its second query until the gate opens. */
async function gatedFirstShard(config: Config) {
  fakeIndexFiles(config);
  const gate = new Gate(2);
  const retriever = countingRetriever(gate);
  const acts = createActivities({ openRetriever: async () => retriever, openBackend: async () => echoBackend() });
  const input = stageInput(config);
  const shard = (await acts.planExport(input)).datasets[0].shards[0];
  return { gate, retriever, acts, input, shard };
}

describe('activities/export (adapters over src/stages/export)', () => {
  it('plans, exports every shard with progress heartbeats, and merges in plan order', async () => {
    const config = fixtureConfig(tmpResults('export'));
    fakeIndexFiles(config);
    const retriever = countingRetriever();
    const acts = createActivities({ openRetriever: async () => retriever, openBackend: async () => echoBackend() });
    const input = stageInput(config);
    const plan = await acts.planExport(input);
    expect(plan.datasets[0].shards.map((s) => [s.start, s.end])).to.deep.equal([
      [0, 4],
      [4, 8],
      [8, 10],
    ]);
    const { beats, run } = recordingEnv();
    for (const shard of plan.datasets[0].shards) await run(acts.exportShard, { input, shard });
    expect(beats.filter((b) => b.step === 'demo#0').at(-1)).to.include({ done: 4, total: 4, unit: 'records' });
    const merged = await acts.mergeExport({ input, plan });
    expect(merged).to.deep.include({ records: 10, byDataset: { demo: 10 } });
    const fixtureIds = lines(config.datasets.demo.path).map((l) => JSON.parse(l).sample_id);
    expect(lines(merged.path).map((l) => JSON.parse(l).sample_id)).to.deep.equal(fixtureIds);
    expect(retriever.queries, 'lines without Arabic are not queried').to.have.length(8);
  });

  it("every rag record of a dense export carries each hit's provenance and gold_in_context", async () => {
    const fixture = tmpResults('export-provenance');
    const base = fixtureConfig(fixture);
    const config = fixtureConfig(fixture, {
      datasets: { demo: { type: 'jsonl', path: base.datasets.demo.path, source_pattern: 'test.Book*' } },
    });
    fakeIndexFiles(config);
    const gold = new Map(lines(config.datasets.demo.path).map((l) => [JSON.parse(l).ocr_text, JSON.parse(l).gt_text] as [string, string]));
    // The first hit is the line's gold text from its source work, the second a sentence of another work.
    const retriever: ExportRetriever = {
      fingerprint: 'gold-and-other',
      async retrieveMany(qs) {
        return qs.map((q, i) => [
          { text: gold.get(q)!, source_uri: 'test.Book.v1', score: 0.9, rank: 1, idx: i, date: 300 },
          { text: 'ثم دخل المدينة في الليل', source_uri: 'other.Work.v1', score: 0.5, rank: 2, idx: 100 + i, date: 400 },
        ]);
      },
      formatForPrompt: (chunks) => chunks.map((c) => c.text).join('\n'),
    };
    const acts = createActivities({ openRetriever: async () => retriever, openBackend: async () => echoBackend() });
    const input = stageInput(config);
    const plan = await acts.planExport(input);
    for (const shard of plan.datasets[0].shards) await acts.exportShard({ input, shard });
    const records = lines((await acts.mergeExport({ input, plan })).path).map((l) => JSON.parse(l) as InferenceInputRecord);
    const rag = records.filter((r) => r.prompt_type === 'rag');
    expect(rag).to.have.length(8);
    for (const r of rag) {
      expect(r.gold_in_context, r.sample_id).to.equal(true);
      expect(r.retrieval_sources.map((x) => x.provenance)).to.deep.equal(['same_passage', 'other_work']);
    }
    expect(records.filter((r) => r.prompt_type !== 'rag').every((r) => r.gold_in_context === undefined)).to.equal(true);
  });

  it('a cancelled shard stops mid-way; the next attempt resumes and retrieves only what is missing', async () => {
    const config = fixtureConfig(tmpResults('export-cancel'));
    const { gate, retriever, acts, input, shard } = await gatedFirstShard(config);
    const first = recordingEnv();
    const running = first.run(acts.exportShard, { input, shard });
    await until(() => retriever.queries.length === 2);
    first.env.cancel();
    gate.open();
    const err = await running.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, 'the cancelled attempt must not complete').to.be.instanceOf(Error);
    expect(err).to.satisfy((e: unknown) => e instanceof CancelledFailure || /cancel|abort/i.test(String((e as Error).message)));
    const file = shardFile(config, shard);
    expect(existsSync(`${file}.done.json`), 'not marked done').to.equal(false);
    const written = lines(file).length;
    expect(written).to.be.within(2, 3);

    const second = recordingEnv({ heartbeatDetails: first.beats.at(-1) });
    const asked = retriever.queries.length;
    const result = await second.run(acts.exportShard, { input, shard });
    expect(result).to.deep.equal({ records: 4, fallbacks: 0, reused: false });
    // Safety net: without resume the second attempt would query all 4 samples again.
    expect(retriever.queries.length - asked).to.equal(4 - written);
    expect(new Set(retriever.queries.slice(asked)).size).to.equal(4 - written);
    expect(lines(file)).to.have.length(4);
  });

  it('the shard heartbeat advances before the shard finishes, between checkpoints', async function () {
    this.timeout(20000);
    // No checkpoint before the shard's end: only per-batch progress (sent within the throttle window) moves it.
    const config = fixtureConfig(tmpResults('export-progress'), {
      export: { shard_size: 4, query_batch_size: 1, checkpoint_every: 100 },
      corpus: { max_sentences: 40 },
    });
    const { gate, retriever, acts, input, shard } = await gatedFirstShard(config);
    // A heartbeat timeout of an hour puts the keep-alive (a third of it) beyond the test's timeout: only the
    // throttled progress beat can bring done = 2 while the shard is held at its third query.
    const { beats, run } = recordingEnv({ heartbeatTimeoutMs: 3_600_000 });
    const running = run(acts.exportShard, { input, shard });
    await until(() => retriever.queries.length === 2);
    await until(() => beats.some((b) => b.step === 'demo#0' && b.done === 2), 15_000);
    expect(existsSync(`${shardFile(config, shard)}.done.json`), 'the shard is still running').to.equal(false);
    gate.open();
    expect(await running).to.deep.include({ records: 4 });
  });

  it('reports a missing index as a non-retryable failure naming the fix', async () => {
    const config = fixtureConfig(tmpResults('export-noindex'));
    const acts = createActivities({ openRetriever: async () => countingRetriever(), openBackend: async () => echoBackend() });
    const err = await acts.planExport(stageInput(config)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).nonRetryable).to.equal(true);
    expect((err as ApplicationFailure).message).to.match(
      /no index at .*\/corpora\/[0-9a-f]+\/index-[0-9a-f]+\.usearch — run `phase5 build` first/,
    );
    expect(path.basename(config.paths.results_dir)).to.match(/^activities-export-noindex-/);
  });
});
