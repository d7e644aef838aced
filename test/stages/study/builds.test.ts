/**
 * The study's builds beyond the run's corpus (src/stages/study/builds.ts): what the build fans out, by
 * fingerprint with the arms using each, and a clear error for a fingerprint the plan no longer has.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { optionsFrom } from '../../../src/stages/build/build';
import { buildStudyCorpus, buildStudyWitnessIndex, studyBuilds } from '../../../src/stages/study/builds';
import { studyPlan } from '../../../src/stages/study/plan';
import { UserInputError } from '../../../src/stages/shared/types';
import { FIXTURES } from '../../helpers/shared-data';

function config(study?: Record<string, unknown>) {
  const results = mkdtempSync(path.join(os.tmpdir(), 'study-builds-'));
  return parseConfig(
    {
      paths: { results_dir: results },
      datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
      ...(study ? { study } : {}),
    },
    'study-builds-test.yaml',
    { env: {} },
  );
}

describe('stages/study-builds', () => {
  const c = config({
    arms: [
      { name: 'rag' },
      { name: 'small', corpus: { sample: { max_sentences: 100 } } },
      { name: 'small_k1', corpus: { sample: { max_sentences: 100 } }, retrieval: { top_k: 1 } },
      { name: 'smaller', corpus: { sample: { max_sentences: 50 } } },
      { name: 'witness', retrieval: { mode: 'witness', witness: { works: ['0200AuthorB*'] } } },
    ],
  });

  it("lists the plan's arm corpora and witness indexes by fingerprint, with the arms using each", () => {
    const plan = studyPlan(c, {});
    const todo = studyBuilds(optionsFrom(c, {}, false, plan));
    expect(todo.corpora).to.deep.equal(plan.corpora.map((x) => ({ fingerprint: x.fingerprint, arms: x.arms })));
    expect(todo.corpora.map((x) => x.arms)).to.deep.equal([['small', 'small_k1'], ['smaller']]);
    expect(todo.witnessIndexes.map((x) => x.arms)).to.deep.equal([['witness']]);
  });

  it('nothing to fan out without study arms of their own corpus or witness mode', () => {
    expect(studyBuilds(optionsFrom(config(), {}))).to.deep.equal({ corpora: [], witnessIndexes: [] });
  });

  it('a fingerprint the plan does not have (the config changed since) is one clear error', async () => {
    const options = optionsFrom(c, {});
    const corpus = await buildStudyCorpus(options, 'feedfacefeedface', {}).catch((e: unknown) => e);
    expect(corpus).to.be.instanceOf(UserInputError);
    expect(String(corpus)).to.match(/corpus feedfacefeedface: no study arm uses it any more .* rerun `phase5 build`/);
    const witness = await buildStudyWitnessIndex(options, 'feedfacefeedface', {}).catch((e: unknown) => e);
    expect(witness).to.be.instanceOf(UserInputError);
    expect(String(witness)).to.match(/witness index feedfacefeedface: no study arm uses it any more/);
  });
});
