/**
 * The analyze adapter through MockActivityEnvironment: scores a small study written by the analysis test
 * helpers with progress heartbeats, and fails without retries when there are no corrections yet.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createActivities } from '../../activities';
import { resultDirs } from '../../src/config/load';
import { writeStudy } from '../analysis/helpers';
import { asDefaultArms } from '../helpers/default-arms';
import { echoBackend, fixtureConfig, recordingEnv, stageInput, tmpResults } from './helpers';

const acts = createActivities({
  openRetriever: async () => {
    throw new Error('unused');
  },
  openBackend: async () => echoBackend(),
});

describe('activities/analyze (adapter over analysis/stage)', function () {
  this.timeout(60000);

  it('analyzes both default arms with progress heartbeats and returns the per-dataset summary', async () => {
    const config = fixtureConfig(tmpResults('analyze'), { analysis: { bootstrap_iterations: 50 } });
    const pairs = Array.from({ length: 12 }, (_, i) => ({
      id: String(i),
      gt: `قال الشيخ ${i} في الكتاب`,
      ocr: `قال الشىخ ${i} فى الكتاب`,
    }));
    const root = resultDirs(config).root;
    asDefaultArms(
      root,
      writeStudy(path.join(root, 'written'), {
        datasets: { demo: pairs },
        phase5: (p) => ({ corrected: p.gt }),
        phase2: (p) => ({ corrected: p.ocr }),
      }),
    );
    const { beats, run } = recordingEnv();
    const result = await run(acts.analyzeResults, stageInput(config));
    expect(result.datasets).to.have.length(1);
    expect(result.datasets[0]).to.include({ dataset: 'demo', n: 12, rag_cer: 0 });
    expect(result.datasets[0].ocr_cer).to.be.greaterThan(0);
    expect(existsSync(result.report)).to.equal(true);
    expect(beats.some((b) => b.step === 'analyze' && b.unit === 'lines')).to.equal(true);
  });

  it('without corrections it fails at once and says which command makes them', async () => {
    const config = fixtureConfig(tmpResults('analyze-none'));
    const err = await acts.analyzeResults(stageInput(config)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ApplicationFailure);
    expect(err).to.deep.include({ nonRetryable: true });
    expect((err as Error).message).to.match(/corrections\.jsonl — run `phase5 infer`/);
  });
});
