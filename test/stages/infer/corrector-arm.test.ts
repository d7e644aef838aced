/** A study arm's `corrector:` — its model name, settings and guard, its k_group, arm.json, and config errors. */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../../src/config/load';
import { DEFAULT_COLLATE_MIN_SIMILARITY } from '../../../src/correctors/collate';
import { DEFAULT_LEXICON_SETTINGS } from '../../../src/correctors/lexicon';
import { armJson } from '../../../src/stages/study/arm-files';
import { studyPlan } from '../../../src/stages/study/plan';
import { checkWorkerNeeds, describeMissing } from '../../../src/stages/infer/worker-needs';
import { FIXTURES } from '../../helpers/shared-data';

const baseConfig = (arms: unknown[]) => ({
  paths: { results_dir: mkdtempSync(path.join(os.tmpdir(), 'corrector-arm-')) },
  datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
  study: { guard: { enabled: true }, arms },
});

function config(arms: unknown[]) {
  return parseConfig(baseConfig(arms), 'corrector-arm-test.yaml', { env: {} });
}

describe('stages/corrector-arm', () => {
  it('collate / lexicon arms: model <corrector>@<version>, settings (defaults or the arm’s), no guard; LLM arms unchanged', () => {
    const arms = studyPlan(
      config([
        { name: 'llm' },
        { name: 'collate', corrector: 'collate' },
        { name: 'lexicon', corrector: 'lexicon', retrieval: { mode: 'none' }, lexicon: { margin: 2 } },
        { name: 'llm2', corrector: 'llm' },
      ]),
      {},
    ).arms;
    const [llm, collate, lexicon, llm2] = arms;
    expect(llm.corrector).to.equal(undefined);
    expect(llm2.corrector).to.equal(undefined);
    expect(llm.guard?.enabled).to.equal(true);
    expect(collate).to.deep.include({ model: 'collate@1', guard: undefined });
    expect(collate.corrector).to.deep.include({ kind: 'collate', collate: { min_similarity: DEFAULT_COLLATE_MIN_SIMILARITY } });
    expect(lexicon.corrector).to.deep.include({ kind: 'lexicon', lexicon: { ...DEFAULT_LEXICON_SETTINGS, margin: 2 } });
    expect(lexicon.corrector!.corpus).to.match(/corpus\.jsonl$/);
    // Same retrieval as the LLM arm: one export, but not one k series.
    expect(collate.retrieval.fingerprint).to.equal(llm.retrieval.fingerprint);
    expect(collate.retrieval.k_group).to.not.equal(llm.retrieval.k_group);
    expect(armJson(collate, undefined)).to.deep.include({ model: 'collate@1', corrector: 'collate' });
    expect(armJson(llm, undefined)).to.not.have.property('corrector');
  });

  it('a GPU worker asks for no LLM for a non-LLM arm (and still for an LLM arm beside it)', async () => {
    const openai = { backend: 'openai', openai: { base_url: 'http://127.0.0.1:9/v1', model: 'm', api_key_env: 'CORR_KEY' } };
    const needs = (arms: unknown[]) =>
      checkWorkerNeeds(parseConfig({ ...baseConfig(arms), infer: openai }, 't', { env: {} }), ['phase5-gpu'], {}, {}).then(describeMissing);
    expect(
      await needs([
        { name: 'c', corrector: 'collate' },
        { name: 'l', corrector: 'lexicon' },
      ]),
    ).to.deep.equal([]);
    const mixed = await needs([{ name: 'c', corrector: 'collate' }, { name: 'llm' }]);
    expect(mixed.join('\n')).to.match(/API key \(arm llm\)/);
  });

  it('an unknown corrector or a bad setting is a one-line error naming the key', () => {
    const problems = (arms: unknown[]) => {
      try {
        config(arms);
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as ConfigError).problems.join('\n');
      }
      throw new Error('expected a ConfigError');
    };
    expect(problems([{ name: 'a', corrector: 'spellcheck' }])).to.match(/study\.arms\.0\.corrector/);
    expect(problems([{ name: 'a', corrector: 'collate', collate: { min_similarity: 2 } }])).to.match(
      /study\.arms\.0\.collate\.min_similarity/,
    );
  });
});
