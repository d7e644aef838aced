/**
 * The fanned-out build through its activities (MockActivityEnvironment, the real MiniLM model on the fixture
 * OpenITI checkout): plan → one activity per shard (run in any order, as workers would) → assemble gives the
 * index, sentence list and manifest of the one-activity build byte for byte (the manifest's created_at aside);
 * a shard resumes from its part file; an up-to-date index is reused; parts of another shard size are dropped.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';

import { parseConfig } from '../../src/config/load';
import { stagePaths } from '../../src/stages/study/layout';
import type { Config } from '../../src/config/schema';
import { defaultPartsDir, indexFiles } from '../../src/index/manifest';
import { buildIndexInShards, partFile, type IndexPlan } from '../../src/stages/build/shards';
import * as build from '../../src/stages/build/build';
import { FIXTURES } from '../helpers/shared-data';
import { MINILM, requireModel } from '../embed/models';
import { echoBackend, recordingEnv, stageInput, tmpResults } from './helpers';
import { createStageCalls } from '../helpers/stage-calls';

const acts = createStageCalls({
  openRetriever: async () => {
    throw new Error('unused');
  },
  openBackend: async () => echoBackend(),
});
const sha256 = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

function shardConfig(dir: string, embedShardSize: number): Config {
  return parseConfig(
    {
      paths: { results_dir: dir },
      data: { openiti_root: path.join(FIXTURES, 'openiti', 'corpus') },
      corpus: { max_sentences: 120 },
      index: { batch_size: 16, embed_shard_size: embedShardSize },
      rag: {
        embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
        embedding: { model_dir: MINILM.dir, query_prefix: '', passage_prefix: '', max_length: 64, batch_size: 5, threads: 2 },
      },
      datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
    },
    'build shards test',
    { env: {} },
  );
}

/** The index files' hashes; the manifest with its created_at blanked (the only field two builds may differ in). */
function indexFingerprint(config: Config): Record<string, string> {
  const files = indexFiles(build.stagePaths(config, {}).index);
  const manifest = readFileSync(files.manifest, 'utf8').replace(/"created_at": "[^"]*"/, '"created_at": "<build time>"');
  return { index: sha256(files.index), sentences: sha256(files.sentences), manifest: createHash('sha256').update(manifest).digest('hex') };
}

async function shardedBuild(config: Config, force = true, order: (plan: IndexPlan) => IndexPlan['shards'] = (p) => p.shards) {
  const input = stageInput(config, force);
  const plan = await acts.planIndexShards(input);
  for (const shard of order(plan)) await acts.embedIndexShard({ input, shard });
  return { plan, index: await acts.assembleIndex({ input, plan }) };
}

describe('activities/build: the embedding fanned out in shards', function () {
  this.timeout(300000);
  let config: Config;
  let reference: Record<string, string>;

  before(async function () {
    requireModel(this, MINILM);
    config = shardConfig(tmpResults('build-shards'), 40);
    await acts.buildCorpus(stageInput(config));
    await acts.buildIndex(stageInput(config, true));
    reference = indexFingerprint(config);
  });

  it('plan → shards (in reverse, as any worker may take any) → assemble equals the one-activity build, byte for byte', async () => {
    const { plan, index } = await shardedBuild(config, true, (p) => [...p.shards].reverse());
    // 40 sentences per shard rounded up to whole durable steps of 16: 48; 120 rows → 3 shards.
    expect(plan.shards).to.deep.equal([
      { part: 0, start: 0, end: 48 },
      { part: 1, start: 48, end: 96 },
      { part: 2, start: 96, end: 120 },
    ]);
    expect(index).to.include({ vectors: 120, indexType: 'exact' });
    expect(indexFingerprint(config)).to.deep.equal(reference);
    expect(existsSync(defaultPartsDir(index.indexPath)), 'parts removed once assembled').to.equal(false);
  });

  it('the local loop (buildIndexInShards) gives the same index', async () => {
    await buildIndexInShards(build.optionsFrom(config, {}, true));
    expect(indexFingerprint(config)).to.deep.equal(reference);
  });

  it('a shard resumes from its part file (a cut trailing row included) and heartbeats rowsEmbedded within the shard', async () => {
    const input = stageInput(config, true);
    const plan = await acts.planIndexShards(input);
    await acts.embedIndexShard({ input, shard: plan.shards[0] });
    const part = partFile(build.stagePaths(config, {}).index, 0);
    const rowBytes = statSync(part).size / 48;
    truncateSync(part, rowBytes * 16 + 100); // killed while appending the second durable step
    const { beats, run } = recordingEnv();
    const again = await run(acts.embedIndexShard, { input, shard: plan.shards[0] });
    expect(again).to.deep.equal({ part: 0, rows: 48, resumedFrom: 16 });
    expect([...new Set(beats.filter((b) => b.checkpoint).map((b) => b.checkpoint!.rowsEmbedded))]).to.deep.equal([32, 48]);
    for (const shard of plan.shards.slice(1)) await acts.embedIndexShard({ input, shard });
    await acts.assembleIndex({ input, plan });
    expect(indexFingerprint(config)).to.deep.equal(reference);
  });

  it('an up-to-date index is reused: no shards, the same result', async () => {
    const plan = await acts.planIndexShards(stageInput(config));
    expect(plan.shards).to.deep.equal([]);
    expect(plan.reused).to.include({ vectors: 120, dims: 384 });
    expect(await acts.assembleIndex({ input: stageInput(config), plan })).to.deep.equal(plan.reused);
  });

  it('parts embedded for another shard size are discarded, not mixed in', async () => {
    const input = stageInput(config, true);
    const first = await acts.planIndexShards(input);
    await acts.embedIndexShard({ input, shard: first.shards[1] }); // rows 48..96 as part-00001
    const other = shardConfig(config.paths.results_dir, 100); // shards of 112: part 1 would be rows 112..120
    const { plan } = await shardedBuild(other, false);
    expect(plan.shards.map((s) => s.end)).to.deep.equal([112, 120]);
    expect(indexFingerprint(other)).to.deep.equal(reference);
  });

  it('a shard without a plan fails at once, saying what to do', async () => {
    const fresh = shardConfig(tmpResults('build-shards-noplan'), 40);
    await acts.buildCorpus(stageInput(fresh));
    const err = await acts.embedIndexShard({ input: stageInput(fresh), shard: { part: 0, start: 0, end: 48 } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.deep.include({ nonRetryable: true });
    expect((err as Error).message).to.match(/no build plan at .*index-[0-9a-f]{16}\.parts\/plan\.json/);
    expect(existsSync(stagePaths(fresh, {}).index)).to.equal(false);
  });
});
