/**
 * Replicates of a study arm (src/stages/study/replicates.ts): R runs with seeds base + r, each writing its own output
 * (replicate 0 the arm's own file), the seed in the request body only for arms with replicates, and a re-run
 * that refuses to resume an output another replicate or another seed made.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import type { BackendConfig, LlmBackend } from '../../../src/llm';
import { optionsFrom, run } from '../../../src/stages/infer/infer';
import { planInfer } from '../../../src/stages/infer/shards';
import { armBaseSeed, replicateRuns, withSeed } from '../../../src/stages/study/replicates';
import { studyPlan } from '../../../src/stages/study/plan';
import { UserInputError } from '../../../src/stages/shared/types';
import { inferenceInputRecord } from '../../helpers/records';

function studyConfig(arms: unknown[]) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'replicates-'));
  return parseConfig(
    {
      paths: { results_dir: root },
      infer: { backend: 'openai', openai: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } },
      study: { arms },
    },
    'replicates-test.yaml',
    { env: {} },
  );
}

/** Every arm's input: the same 3 lines. */
function writeInputs(arms: { input: string }[]): void {
  const rows = ['a', 'b', 'c'].map((id) => JSON.stringify(inferenceInputRecord(id)));
  for (const a of arms) {
    mkdirSync(path.dirname(a.input), { recursive: true });
    writeFileSync(a.input, rows.join('\n') + '\n');
  }
}

/** A backend that answers with the OCR line and records the config it was opened with (the seed rides in extraBody). */
function recording(opened: BackendConfig[]) {
  return async (cfg: BackendConfig): Promise<LlmBackend> => {
    opened.push(cfg);
    return {
      id: 'rec',
      model: 'm',
      concurrency: 2,
      async complete(messages) {
        return { text: messages[messages.length - 1].content, promptTokens: 3, completionTokens: 2, latencyMs: 5, attempts: 1 };
      },
      async close() {},
    };
  };
}

const seedOf = (cfg: BackendConfig) => cfg.decoding?.seed ?? undefined;

describe('stages/replicates', () => {
  it('replicates: 3 runs three passes with seeds 0, 1, 2 into their own files; an arm without replicates sends no seed', async () => {
    const c = studyConfig([
      { name: 'zs', prompt: 'zero_shot' },
      { name: 'rep', prompt: 'zero_shot', replicates: 3 },
    ]);
    const plan = studyPlan(c, {});
    writeInputs(plan.arms);
    const opened: BackendConfig[] = [];
    const out = await run(optionsFrom(c, {}, false, plan), {}, recording(opened));
    expect(Object.keys(out)).to.deep.equal(['zs', 'rep', 'rep#1', 'rep#2']);
    expect(opened.map(seedOf)).to.deep.equal([undefined, 0, 1, 2]);
    const dir = path.join(c.paths.results_dir, 'arms', 'rep');
    const files = [path.join(dir, 'corrections.jsonl'), ...[1, 2].map((r) => path.join(dir, 'replicates', String(r), 'corrections.jsonl'))];
    for (const f of files) expect(readFileSync(f, 'utf8').trim().split('\n'), f).to.have.length(3);
    expect(JSON.parse(readFileSync(path.join(dir, 'replicates', '2', 'replicate.json'), 'utf8'))).to.deep.equal({
      arm: 'rep',
      replicate: 2,
      seed: 2,
    });
    expect(existsSync(path.join(c.paths.results_dir, 'arms', 'zs', 'replicate.json')), 'no marker without replicates').to.equal(false);
    const results = out as Record<string, { replicate?: number; seed?: number; promptTokens: number }>;
    expect([results['rep#2'].replicate, results['rep#2'].seed, results['rep#2'].promptTokens]).to.deep.equal([2, 2, 9]);
    expect(results.zs).to.not.have.property('replicate');
  });

  it('the base seed is the arm decoding seed (over infer.decoding): replicate r sends seed + r', () => {
    const c = studyConfig([
      { name: 'rep', prompt: 'zero_shot', replicates: 2, decoding: { seed: 41 } },
      { name: 'plain', prompt: 'zero_shot', replicates: 2 },
    ]);
    const [rep, plain] = studyPlan(c, {}).arms;
    expect(replicateRuns(rep).map((r) => seedOf(r.backend()))).to.deep.equal([41, 42]);
    expect(replicateRuns(plain).map((r) => seedOf(r.backend()))).to.deep.equal([0, 1]);
    expect(armBaseSeed(rep.config)).to.equal(41);
    // The seed goes into the decoding the request is built from, over the rest of it.
    const cfg = withSeed({ type: 'openai', baseUrl: 'u', model: 'm', temperature: 0.7, maxTokens: 32 }, 7);
    expect(cfg.decoding).to.include({ seed: 7, temperature: 0.7, max_tokens: 32 });
  });

  it('a re-run with another seed does not resume the output a replicate made (an error naming both), --force redoes it', async () => {
    const c = studyConfig([{ name: 'rep', prompt: 'zero_shot', replicates: 2 }]);
    const plan = studyPlan(c, {});
    writeInputs(plan.arms);
    await run(optionsFrom(c, {}, false, plan), {}, recording([]));
    // The same arm, now counting from seed 10: replicate 0's file was made with seed 0.
    const moved = { ...plan, arms: plan.arms.map((a) => ({ ...a, baseSeed: 10 })) };
    const err = await run(optionsFrom(c, {}, false, moved), {}, recording([])).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(UserInputError);
    expect((err as Error).message).to.match(/replicate 0 of arm "rep" with seed 0, but this run is replicate 0 with seed 10.*--force/);
    const opened: BackendConfig[] = [];
    await run(optionsFrom(c, {}, true, moved), {}, recording(opened));
    expect(opened.map(seedOf)).to.deep.equal([10, 11]);
    const marker = path.join(c.paths.results_dir, 'arms', 'rep', 'replicate.json');
    expect(JSON.parse(readFileSync(marker, 'utf8')).seed).to.equal(10);
  });

  it('the sharded plan: one arm plan per replicate with its own output and seed, and the same refusal of another seed', async () => {
    const c = studyConfig([{ name: 'rep', prompt: 'zero_shot', replicates: 3 }]);
    const plan = studyPlan(c, {});
    writeInputs(plan.arms);
    const plans = await planInfer(optionsFrom(c, {}, false, plan));
    expect(plans.map((p) => [p.arm, p.replicate, p.seed, path.relative(c.paths.results_dir, p.output)])).to.deep.equal([
      ['rep', 0, 0, path.join('arms', 'rep', 'corrections.jsonl')],
      ['rep', 1, 1, path.join('arms', 'rep', 'replicates', '1', 'corrections.jsonl')],
      ['rep', 2, 2, path.join('arms', 'rep', 'replicates', '2', 'corrections.jsonl')],
    ]);
    // The parts of replicate 1 exist now (an unmerged run): planning it again with seed 11 is refused.
    const moved = { ...plan, arms: plan.arms.map((a) => ({ ...a, baseSeed: 10 })) };
    const err = await planInfer(optionsFrom(c, {}, false, moved)).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as Error)?.message).to.match(/holds replicate 0 of arm "rep" with seed 0, but this run is replicate 0 with seed 10/);
  });

  it('replicates is a positive integer (a one-line config error naming the key)', () => {
    expect(() => studyConfig([{ name: 'rep', replicates: 0 }])).to.throw(/study\.arms\.0\.replicates/);
  });
});
