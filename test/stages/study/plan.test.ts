/**
 * The study plan (src/stages/study/plan.ts): arms, the exports they share, the arms' own corpora, the witness
 * indexes and every directory, computed once from the config; the stages' options read it.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusFingerprint, indexFingerprint } from '../../../src/config/corpus-fingerprint';
import { parseConfig } from '../../../src/config/load';
import * as build from '../../../src/stages/build/build';
import * as exporter from '../../../src/stages/export/export';
import * as infer from '../../../src/stages/infer/infer';
import { studyPlan } from '../../../src/stages/study/plan';
import { UserInputError } from '../../../src/stages/shared/types';
import { FIXTURES } from '../../helpers/shared-data';

function config(extra: Record<string, unknown> = {}) {
  const results = mkdtempSync(path.join(os.tmpdir(), 'study-plan-'));
  return parseConfig(
    { paths: { results_dir: results }, datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } }, ...extra },
    'study-plan-test.yaml',
    { env: {} },
  );
}

const STUDY = {
  corpora: { sources_out: { exclude_works: ['0200AuthorB*'] } },
  arms: [
    { name: 'zero_shot', prompt: 'zero_shot' },
    { name: 'rag' },
    { name: 'rag_same', retrieval: { top_k: 3 } }, // the configured k: the same retrieval as rag
    { name: 'similar', corpus: 'sources_out' },
    { name: 'similar_k1', corpus: 'sources_out', retrieval: { top_k: 1 } },
    { name: 'witness', retrieval: { mode: 'witness', witness: { works: ['0200AuthorB*'] } } },
    { name: 'placebo', retrieval: { mode: 'random' } },
    { name: 'oracle', retrieval: { mode: 'gold_query' } },
  ],
};

describe('stages/study-plan', () => {
  it('without study: the two default arms in arms/<arm>/ read the single default export; the run corpus under its settings fingerprint', () => {
    const c = config();
    const root = c.paths.results_dir;
    const plan = studyPlan(c, {});
    expect(plan.exports).to.equal(null);
    expect(plan.corpora).to.deep.equal([]);
    expect(plan.witnessIndexes).to.deep.equal([]);
    const folder = path.join(root, 'corpora', corpusFingerprint(c));
    expect(plan.paths).to.deep.equal({
      corpus: path.join(folder, 'corpus.jsonl'),
      index: path.join(folder, `index-${indexFingerprint(c)}.usearch`),
    });
    expect(plan.arms.map((a) => [a.name, a.role, a.input, a.output, a.dir])).to.deep.equal([
      [
        'rag',
        'method',
        path.join(root, 'arms', 'rag', 'inference_input.jsonl'),
        path.join(root, 'arms', 'rag', 'corrections.jsonl'),
        undefined,
      ],
      [
        'zero_shot',
        'baseline',
        path.join(root, 'arms', 'zero_shot', 'inference_input.jsonl'),
        path.join(root, 'arms', 'zero_shot', 'corrections.jsonl'),
        undefined,
      ],
    ]);
  });

  it('lays out every directory under the results dir; --corpus-path / --index-path move the run corpus only', () => {
    const c = config();
    const root = c.paths.results_dir;
    const plan = studyPlan(c, { corpusPath: '/data/c.jsonl', indexPath: '/data/i.usearch' });
    expect(plan.dirs).to.deep.equal({
      root,
      arms: path.join(root, 'arms'),
      exports: path.join(root, 'exports'),
      corpora: path.join(root, 'corpora'),
      witness: path.join(root, 'witness'),
    });
    expect(plan.paths).to.deep.equal({ corpus: '/data/c.jsonl', index: '/data/i.usearch' });
  });

  it('other corpus settings get another corpus folder, other index settings another index in it; runtime settings neither', () => {
    const base = config();
    const results = { paths: { results_dir: base.paths.results_dir } };
    const paths = (extra: Record<string, unknown>) => studyPlan(config({ ...results, ...extra }), {}).paths;
    const plain = studyPlan(base, {}).paths;
    for (const corpus of [{ max_sentences: 5000 }, { seed: 7 }, { exclude: ['0200AuthorB*'] }]) {
      const other = paths({ corpus });
      expect(path.dirname(other.corpus), JSON.stringify(corpus)).to.not.equal(path.dirname(plain.corpus));
      expect(path.dirname(other.index)).to.equal(path.dirname(other.corpus));
    }
    for (const index of [{ dtype: 'i8' }, { type: 'HNSW' }]) {
      const other = paths({ index });
      expect(other.corpus, JSON.stringify(index)).to.equal(plain.corpus);
      expect(other.index, JSON.stringify(index)).to.not.equal(plain.index);
    }
    expect(paths({ rag: { embedding_model: 'other/model' } }).index).to.not.equal(plain.index);
    expect(paths({ index: { batch_size: 64, embed_shard_size: 1000 }, rag: { embedding: { threads: 1 } } })).to.deep.equal(plain);
  });

  it('a study arm whose corpus block asks for the run corpus shares its folder; --corpus-path keys the index folder by that path', () => {
    const c = config({ study: { arms: [{ name: 'zero_shot' }, { name: 'same', corpus: { sample: { max_sentences: 200000 } } }] } });
    const plan = studyPlan(c, {});
    expect(plan.corpora).to.deep.equal([]);
    expect(plan.exports!.map((e) => e.paths)).to.deep.equal([plan.paths]);
    const moved = studyPlan(c, { corpusPath: '/data/c.jsonl' }).paths;
    expect(moved.corpus).to.equal('/data/c.jsonl');
    expect(path.dirname(moved.index)).to.not.equal(path.dirname(plan.paths.index));
  });

  it('a results dir that is a file is one clear error', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'study-plan-')), 'results');
    writeFileSync(file, '');
    const c = config({ paths: { results_dir: file } });
    expect(() => studyPlan(c, {})).to.throw(UserInputError, /is a file, not a directory/);
  });

  describe('a study with shared retrievals, an own corpus and a witness arm', () => {
    const c = config({ study: STUDY });
    const root = c.paths.results_dir;
    const plan = studyPlan(c, {});

    it('arms with the same retrieval share one export; each other retrieval or corpus gets its own', () => {
      expect(plan.exports!.map((e) => [e.mode, e.arms])).to.deep.equal([
        ['dense', ['zero_shot', 'rag', 'rag_same']],
        ['dense', ['similar']],
        ['dense', ['similar_k1']],
        ['witness', ['witness']],
        ['random', ['placebo']],
        ['gold_query', ['oracle']],
      ]);
      for (const e of plan.exports!) expect(e.dir).to.equal(path.join(root, 'exports', e.fingerprint));
      const rag = plan.arms.find((a) => a.name === 'rag')!;
      expect(plan.arms.find((a) => a.name === 'rag_same')!.retrieval.fingerprint).to.equal(rag.retrieval.fingerprint);
    });

    it('an arm with its own corpus block gets one corpus folder (shared by the arms naming it), which its exports read', () => {
      expect(plan.corpora).to.have.length(1);
      const [corpus] = plan.corpora;
      expect(corpus.arms).to.deep.equal(['similar', 'similar_k1']);
      expect(corpus.dir).to.equal(path.join(root, 'corpora', corpus.fingerprint));
      expect(corpus.paths).to.deep.equal({
        corpus: path.join(corpus.dir, 'corpus.jsonl'),
        index: path.join(corpus.dir, `index-${indexFingerprint(c)}.usearch`),
      });
      expect(corpus.config.corpus.exclude).to.include('0200AuthorB*');
      const similar = plan.exports!.find((e) => e.arms.includes('similar'))!;
      expect(similar.paths).to.deep.equal(corpus.paths);
      expect(plan.exports![0].paths).to.deep.equal(plan.paths); // rag reads the run's corpus
    });

    it('the witness arm gets a witness index under <results>/witness/<fingerprint>/', () => {
      expect(plan.witnessIndexes.map((w) => [w.arms, w.dir])).to.deep.equal([
        [['witness'], path.join(root, 'witness', plan.witnessIndexes[0].fingerprint)],
      ]);
      expect(plan.witnessIndexes[0].config.retrieval.witness?.works).to.deep.equal(['0200AuthorB*']);
    });

    it('arms get their folder under arms/ and a role: baseline, method, placebo, upper bound', () => {
      const byName = Object.fromEntries(plan.arms.map((a) => [a.name, a]));
      expect(byName.similar.dir).to.equal(path.join(root, 'arms', 'similar'));
      expect(byName.similar.input).to.equal(path.join(root, 'arms', 'similar', 'inference_input.jsonl'));
      expect(Object.fromEntries(plan.arms.map((a) => [a.name, a.role]))).to.deep.equal({
        zero_shot: 'baseline',
        rag: 'method',
        rag_same: 'method',
        similar: 'method',
        similar_k1: 'method',
        witness: 'method',
        placebo: 'placebo',
        oracle: 'upper_bound',
      });
    });

    it('--arm narrows the arms the run works on, not the declared ones (every arm folder is written by the export)', () => {
      const one = studyPlan(c, { arm: 'similar' });
      expect(one.arms.map((a) => a.name)).to.deep.equal(['similar']);
      expect(one.declared.map((a) => a.name)).to.deep.equal(plan.declared.map((a) => a.name));
      expect(one.exports).to.deep.equal(plan.exports);
    });

    it("the stages' options read the plan they are handed", () => {
      const b = build.optionsFrom(c, {}, false, plan);
      expect(b.corpora).to.equal(plan.corpora);
      expect(b.witness).to.equal(plan.witnessIndexes);
      expect(b.paths).to.equal(plan.paths);
      const e = exporter.optionsFrom(c, {}, false, plan);
      expect(e.groups).to.equal(plan.exports);
      expect(e.arms).to.equal(plan.declared);
      expect(infer.optionsFrom(c, {}, false, plan).arms).to.equal(plan.arms);
    });
  });
});
