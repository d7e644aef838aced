/**
 * The corpus as a study factor: arms naming a `corpus` block (inline or under `study.corpora`) get their own
 * corpus and index under <results>/corpora/<fingerprint>/, built once per distinct corpus with the run's corpus,
 * and their own export; `exclude_works` holds works out, `add_works` adds whole works to the sample.
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { parseConfig } from '../../../src/config/load';
import { indexFingerprint } from '../../../src/config/corpus-fingerprint';
import { stagePaths } from '../../../src/stages/study/layout';
import type { InferenceInputRecord } from '../../../src/llm/records';
import { studyPlan } from '../../../src/stages/study/plan';
import type { StageInput } from '../../../src/stages/shared/types';
import { MINILM, requireModel } from '../../embed/models';
import { FIXTURES } from '../../helpers/shared-data';
import { createStageCalls } from '../../helpers/stage-calls';

const { buildCorpus, buildIndex, exportShard, mergeExport, planExport } = createStageCalls();
const uris = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { source_uri: string }).source_uri);

function config(dir: string) {
  return parseConfig(
    {
      paths: { results_dir: dir },
      data: { openiti_root: path.join(FIXTURES, 'openiti', 'corpus') },
      corpus: { max_sentences: 6, min_char_len: 10, eras: [{ name: 'all', from: 0, to: 2000, fraction: 1 }] },
      export: { shard_size: 10 },
      rag: {
        embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
        embedding: { model_dir: MINILM.dir, query_prefix: '', passage_prefix: '', threads: 1 },
      },
      datasets: { fix: { type: 'paired_dir', path: path.join(FIXTURES, 'datasets', 'paired') } },
      study: {
        baseline: 'zero_shot',
        corpora: { with_b: { add_works: ['0200AuthorB.*'] } },
        arms: [
          { name: 'zero_shot', prompt: 'zero_shot' },
          { name: 'rag' },
          { name: 'similar', corpus: { exclude_works: ['0200AuthorB.*'] } },
          { name: 'with_b', corpus: 'with_b' },
          { name: 'with_b_k1', corpus: 'with_b', retrieval: { top_k: 1 } },
        ],
      },
    },
    'arm-corpus test',
    { env: {} },
  );
}

describe('stages: the corpus as a study factor', function () {
  this.timeout(300000);
  let dir: string;
  let input: StageInput;

  before(async function () {
    requireModel(this, MINILM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'arm-corpus-'));
    input = { run: 'arm-corpus', config: config(dir), options: {}, force: false };
    await buildCorpus(input);
    await buildIndex(input);
    const plan = await planExport(input);
    for (const shard of plan.datasets.flatMap((d) => d.shards)) await exportShard({ input, shard });
    await mergeExport({ input, plan });
  });

  it('builds each distinct corpus once, in its own folder, with its index', () => {
    const corpora = readdirSync(path.join(dir, 'corpora')).sort();
    expect(corpora).to.have.length(3); // the run's own corpus and the two arms' blocks
    const indexStem = `index-${indexFingerprint(input.config)}`;
    for (const c of corpora)
      expect(readdirSync(path.join(dir, 'corpora', c))).to.include.members([
        'corpus.jsonl',
        `${indexStem}.usearch`,
        `${indexStem}.manifest.json`,
      ]);
    const arms = studyPlan(input.config, {}).arms;
    const similar = arms.find((a) => a.name === 'similar')!.config.corpus;
    const withB = arms.find((a) => a.name === 'with_b')!.config.corpus;
    expect(uris(path.join(dir, similar.dir!, 'corpus.jsonl')).some((u) => u.startsWith('0200AuthorB'))).to.equal(false);
    const added = uris(path.join(dir, withB.dir!, 'corpus.jsonl')).filter((u) => u.startsWith('0200AuthorB')).length;
    const sampled = uris(stagePaths(input.config, {}).corpus).filter((u) => u.startsWith('0200AuthorB')).length;
    expect(added).to.be.greaterThan(sampled); // the whole work, not the sample's share of it
    expect(arms.find((a) => a.name === 'with_b_k1')!.config.corpus.dir).to.equal(withB.dir);
  });

  it('exports once per distinct corpus and retrieval, each arm from its own corpus', () => {
    const groups = studyPlan(input.config, {}).exports!;
    expect(groups.map((g) => g.arms)).to.deep.equal([['zero_shot', 'rag'], ['similar'], ['with_b'], ['with_b_k1']]);
    const read = (arm: string) =>
      readFileSync(path.join(dir, 'arms', arm, 'inference_input.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as InferenceInputRecord);
    const sources = (arm: string) => read(arm).flatMap((r) => r.retrieval_sources.map((s) => s.source_uri));
    expect(sources('similar').some((u) => u.startsWith('0200AuthorB'))).to.equal(false);
    expect(sources('with_b').some((u) => u.startsWith('0200AuthorB'))).to.equal(true);
  });

  it("a block that equals corpus shares the run's corpus; any difference gets its own folder", async () => {
    const { armConfig } = await import('../../../src/config/study');
    const c = config(dir);
    expect(armConfig(c, { name: 'a', corpus: { exclude_works: [] } }).corpus).to.deep.equal(c.corpus);
    expect(armConfig(c, { name: 'a', corpus: { sample: { seed: 7 } } }).corpus.dir).to.match(/^corpora\/[0-9a-f]{16}$/);
    expect(armConfig(c, { name: 'a', corpus: { sample: { seed: 7 } } }).corpus.dir).to.not.equal(
      armConfig(c, { name: 'a', corpus: { sample: { seed: 8 } } }).corpus.dir,
    );
  });

  it('rejects an arm naming an undeclared corpus, with the names there are', () => {
    const bad = () =>
      parseConfig({ datasets: {}, study: { corpora: { a: {} }, arms: [{ name: 'x', corpus: 'nope' }] } }, 'cfg', { env: {} });
    expect(bad).to.throw(/study\.arms\.0\.corpus: unknown corpus "nope" — study\.corpora declares: a/);
  });
});
