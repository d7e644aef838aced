/**
 * Study arms from the config: the two default arms without `study:`, validated `study:` blocks with one-line
 * errors naming the field, and one export per distinct retrieval fingerprint.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../../src/config/load';
import { armNames } from '../../../src/stages/study/arm-names';
import { studyPlan } from '../../../src/stages/study/plan';
import { optionsFrom } from '../../../src/stages/infer/infer';
import { UserInputError } from '../../../src/stages/shared/types';
import { FIXTURES } from '../../helpers/shared-data';

const results = () => mkdtempSync(path.join(os.tmpdir(), 'arms-'));

function config(extra: Record<string, unknown> = {}) {
  return parseConfig(
    { paths: { results_dir: results() }, datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } }, ...extra },
    'arms-test.yaml',
    { env: {} },
  );
}

function configError(study: unknown): string {
  try {
    config({ study });
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as ConfigError).problems.join('\n');
  }
  throw new Error('expected a ConfigError');
}

describe('stages/arms', () => {
  it('without study: the arms are rag and zero_shot in arms/<arm>/, in infer.arms order', () => {
    const c = config({ infer: { arms: ['zero_shot', 'rag'] } });
    const root = c.paths.results_dir;
    const arms = studyPlan(c, {}).arms;
    const at = (arm: string, file: string) => path.join(root, 'arms', arm, file);
    expect(arms.map((a) => [a.name, a.prompt, a.input, a.output])).to.deep.equal([
      ['zero_shot', 'zero_shot', at('zero_shot', 'inference_input.jsonl'), at('zero_shot', 'corrections.jsonl')],
      ['rag', 'rag', at('rag', 'inference_input.jsonl'), at('rag', 'corrections.jsonl')],
    ]);
    expect(arms.every((a) => !a.upperBound && a.guard === undefined)).to.equal(true);
    expect(studyPlan(c, {}).exports).to.equal(null);
  });

  it('--baseline-dir leaves zero_shot out; --arm runs one arm; an unknown --arm is an error naming the arms', () => {
    const c = config();
    expect(armNames(c, { baselineDir: '/elsewhere' })).to.deep.equal(['rag']);
    expect(studyPlan(c, { baselineDir: '/elsewhere' }).arms.map((a) => a.name)).to.deep.equal(['rag']);
    expect(studyPlan(c, { arm: 'zero_shot' }).arms.map((a) => a.name)).to.deep.equal(['zero_shot']);
    expect(() => studyPlan(c, { arm: 'placebo' }).arms).to.throw(UserInputError, /unknown arm "placebo".*rag, zero_shot/);
  });

  it('an import goes to the rag arm by default and to --arm NAME when given', () => {
    const c = config({
      study: { arms: [{ name: 'zero_shot', prompt: 'zero_shot' }, { name: 'rag' }, { name: 'rag_k1', retrieval: { top_k: 1 } }] },
    });
    expect(optionsFrom(c, { importFile: 'x.jsonl' }).importArm?.name).to.equal('rag');
    const opts = optionsFrom(c, { importFile: 'x.jsonl', arm: 'rag_k1' });
    expect(opts.importArm?.output).to.equal(path.join(c.paths.results_dir, 'arms', 'rag_k1', 'corrections.jsonl'));
  });

  it('study: arms get <results>/arms/<arm>/, overrides deep-merged, oracle an upper bound, guard study + arm', () => {
    const c = config({
      infer: { local: { max_tokens: 64 } },
      study: {
        guard: { enabled: true },
        arms: [
          { name: 'zero_shot', prompt: 'zero_shot' },
          { name: 'rag' },
          { name: 'hybrid', retrieval: { hybrid: { enabled: true, fusion: 'weighted' } }, guard: { max_edit_ratio: 0.3 } },
          { name: 'oracle', retrieval: { mode: 'gold_query' } },
          { name: 'big', infer: { local: { threads: 4 } } },
        ],
      },
    });
    expect(c.study?.baseline).to.equal('zero_shot'); // default: the first zero-shot arm
    const arms = Object.fromEntries(studyPlan(c, {}).arms.map((a) => [a.name, a]));
    expect(arms.hybrid.retrieval.mode).to.equal('hybrid');
    expect(arms.hybrid.config.retrieval.hybrid).to.include({ enabled: true, fusion: 'weighted', ngram: 3 });
    expect(arms.hybrid.guard).to.deep.equal({ enabled: true, max_edit_ratio: 0.3, length_ratio: [0.6, 1.5], trim_overgeneration: true });
    expect(arms.oracle.upperBound).to.equal(true);
    expect(arms.zero_shot.retrieval.mode).to.equal('none');
    expect(arms.big.config.infer.local).to.include({ threads: 4, max_tokens: 64 });
    expect(arms.rag.output).to.equal(path.join(c.paths.results_dir, 'arms', 'rag', 'corrections.jsonl'));
  });

  it('arms with equal retrieval share one export (zero-shot reads the configured one); other settings get their own', () => {
    const c = config({
      study: {
        arms: [
          { name: 'zero_shot', prompt: 'zero_shot' },
          { name: 'rag' },
          { name: 'rag_again', retrieval: { top_k: 3 } }, // the default k: the same retrieval
          { name: 'rag_k1', retrieval: { top_k: 1 } },
          { name: 'placebo', retrieval: { mode: 'random' } },
        ],
      },
    });
    const groups = studyPlan(c, {}).exports!;
    expect(groups.map((g) => [g.mode, g.arms])).to.deep.equal([
      ['dense', ['zero_shot', 'rag', 'rag_again']],
      ['dense', ['rag_k1']],
      ['random', ['placebo']],
    ]);
    expect(new Set(groups.map((g) => g.fingerprint)).size).to.equal(3);
    expect(groups[0].dir).to.equal(path.join(c.paths.results_dir, 'exports', groups[0].fingerprint));
  });

  it('k_group is equal for arms that differ only in top_k, and differs when anything else differs', () => {
    const c = config({
      study: {
        arms: [
          { name: 'rag' },
          { name: 'rag_k1', retrieval: { top_k: 1 } },
          { name: 'rag_k10', retrieval: { top_k: 10 } },
          { name: 'rerank_k1', retrieval: { top_k: 1, rerank: { enabled: true, method: 'lexical' } } },
          { name: 'hot_k1', retrieval: { top_k: 1 }, infer: { temperature: 0.7 } },
          { name: 'placebo_k1', retrieval: { top_k: 1, mode: 'random' } },
          { name: 'unguarded_k1', retrieval: { top_k: 1 }, guard: { enabled: false } },
        ],
        guard: { enabled: true },
      },
    });
    const group = Object.fromEntries(studyPlan(c, {}).arms.map((a) => [a.name, a.retrieval.k_group]));
    expect(group.rag_k1).to.equal(group.rag);
    expect(group.rag_k10).to.equal(group.rag);
    for (const other of ['rerank_k1', 'hot_k1', 'placebo_k1', 'unguarded_k1']) expect(group[other], other).to.not.equal(group.rag);
    expect(new Set(Object.values(group)).size).to.equal(5);
  });

  describe('config validation: one line naming the field', () => {
    it('unknown baseline arm', () => {
      expect(configError({ baseline: 'nope', arms: [{ name: 'rag' }] })).to.match(
        /^study\.baseline: unknown baseline arm "nope" — the arms are: rag/,
      );
    });
    it('a planned contrast naming an unknown arm, or one arm twice', () => {
      expect(
        configError({
          arms: [{ name: 'rag' }, { name: 'placebo', retrieval: { mode: 'random' } }],
          contrasts: [{ arm: 'rag', vs: 'placbo' }],
        }),
      ).to.match(/^study\.contrasts\.0\.vs: unknown arm "placbo" — the arms are: rag, placebo/);
      expect(configError({ arms: [{ name: 'rag' }], contrasts: [{ arm: 'rag', vs: 'rag' }] })).to.match(
        /^study\.contrasts\.0: a contrast needs two different arms/,
      );
      expect(
        config({
          study: {
            arms: [{ name: 'rag' }, { name: 'placebo', retrieval: { mode: 'random' } }],
            contrasts: [{ arm: 'rag', vs: 'placebo' }],
          },
        }).study!.contrasts,
      ).to.deep.equal([{ arm: 'rag', vs: 'placebo' }]);
    });
    it('duplicate arm names', () => {
      expect(configError({ arms: [{ name: 'rag' }, { name: 'rag', retrieval: { top_k: 1 } }] })).to.match(
        /^study\.arms\.1\.name: duplicate arm name "rag"/,
      );
    });
    it('bad mode', () => {
      expect(configError({ arms: [{ name: 'x', retrieval: { mode: 'bm25' } }] })).to.match(
        /^study\.arms\.0\.retrieval\.mode: .*"dense".*"random".*"gold_query".*"none"/,
      );
    });
    it('a bad override key or value, and a zero-shot prompt with a retrieval mode', () => {
      expect(configError({ arms: [{ name: 'x', retrieval: { top_kk: 1 } }] })).to.match(/^study\.arms\.0\.retrieval: .*top_kk/);
      expect(configError({ arms: [{ name: 'x', retrieval: { top_k: -1 } }] })).to.match(/^study\.arms\.0\.retrieval\.top_k: .*\(arm "x"\)/);
      expect(configError({ arms: [{ name: 'x', infer: { backend: 'gpt' } }] })).to.match(/^study\.arms\.0\.infer\.backend: /);
      expect(configError({ arms: [{ name: 'z', prompt: 'zero_shot', retrieval: { mode: 'random' } }] })).to.match(
        /^study\.arms\.0\.retrieval\.mode: a zero_shot prompt uses no context/,
      );
    });
    it('every problem is one line', () => {
      const text = configError({ baseline: 'b', arms: [{ name: 'a' }, { name: 'a' }] });
      expect(text.split('\n')).to.have.length(2);
    });
  });
});
