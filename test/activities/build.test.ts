/**
 * The build adapters through MockActivityEnvironment: the corpus step on the fixture OpenITI checkout (no
 * model) heartbeats its progress, reuses an up-to-date corpus, and fails without retries when the checkout is
 * missing; the index step (small real MiniLM model) heartbeats its durable checkpoint, rowsEmbedded.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';

import { parseConfig } from '../../src/config/load';
import { FIXTURES, REPO_ROOT } from '../helpers/shared-data';
import { echoBackend, fixtureConfig, recordingEnv, stageInput, tmpResults } from './helpers';
import { createStageCalls } from '../helpers/stage-calls';

const acts = createStageCalls({
  openRetriever: async () => {
    throw new Error('unused');
  },
  openBackend: async () => echoBackend(),
});
const MINILM = path.join(REPO_ROOT, 'models', 'all-MiniLM-L6-v2');

describe('activities/build (adapters over src/stages/build)', function () {
  this.timeout(120000);

  it('builds the corpus with progress heartbeats, then reuses it while nothing changed', async () => {
    const config = fixtureConfig(tmpResults('build'));
    const { beats, run } = recordingEnv();
    const built = await run(acts.buildCorpus, stageInput(config));
    expect(built.reused).to.equal(false);
    expect(built.sentences).to.be.greaterThan(0);
    expect(beats.length).to.be.greaterThan(0);
    expect(beats.every((b) => b.step === 'corpus' && b.unit === 'bytes')).to.equal(true);
    const again = await recordingEnv().run(acts.buildCorpus, stageInput(config));
    expect(again).to.deep.include({ reused: true, sha256: built.sha256 });
  });

  it('a missing OpenITI checkout fails at once, naming the setting to fix', async () => {
    const config = fixtureConfig(tmpResults('build-missing'), { data: { openiti_root: path.join(FIXTURES, 'no-such-checkout') } });
    const err = await acts.buildCorpus(stageInput(config)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ApplicationFailure);
    expect(err).to.deep.include({ nonRetryable: true });
    expect((err as Error).message).to.match(/OpenITI root not found: .*no-such-checkout \(set data\.openiti_root/);
  });

  it('the index step heartbeats rowsEmbedded as its checkpoint', async function () {
    if (!existsSync(MINILM)) {
      console.log(`    (skipped: MiniLM not found at ${MINILM}; run npm run setup)`);
      this.skip();
    }
    const dir = tmpResults('build-index');
    const config = parseConfig(
      {
        paths: { results_dir: dir },
        data: { openiti_root: path.join(FIXTURES, 'openiti', 'corpus') },
        corpus: { max_sentences: 40 },
        index: { batch_size: 16 },
        rag: {
          embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
          embedding: { model_dir: MINILM, query_prefix: '', passage_prefix: '', max_length: 64, threads: 1 },
        },
        datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
      },
      'build test',
      { env: {} },
    );
    await acts.buildCorpus(stageInput(config));
    const { beats, run } = recordingEnv();
    const index = await run(acts.buildIndex, stageInput(config));
    expect(index.vectors).to.equal(40);
    const checkpoints = beats.filter((b) => b.checkpoint).map((b) => b.checkpoint!.rowsEmbedded);
    expect([...new Set(checkpoints)], 'each durable step, in order').to.deep.equal([16, 32, 40]);
  });
});
