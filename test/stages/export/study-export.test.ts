/**
 * A study's export on real data (OpenITI slice + an OCR_GS book, MiniLM): one export per distinct retrieval,
 * arm dirs pointing at them, the placebo deterministic and unlike the real context, the oracle marked, the
 * verbatim-gold rate recorded; and the default config's export unchanged by the arms code (sha256 of the
 * records against the same run without `study:`).
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { parseConfig } from '../../../src/config/load';
import type { Config } from '../../../src/config/schema';
import type { InferenceInputRecord } from '../../../src/llm/records';
import type { StageInput } from '../../../src/stages/shared/types';
import { MINILM, requireModel } from '../../embed/models';
import { OCR_GS_ROOT, requireSharedData } from '../../helpers/shared-data';
import { createStageCalls } from '../../helpers/stage-calls';

const { buildCorpus, buildIndex, exportShard, mergeExport, planExport } = createStageCalls();
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const records = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as InferenceInputRecord);

const STUDY = {
  baseline: 'zero_shot',
  arms: [
    { name: 'zero_shot', prompt: 'zero_shot' },
    { name: 'rag' },
    { name: 'rag_same', retrieval: { top_k: 3 } },
    { name: 'rag_k1', retrieval: { top_k: 1 } },
    { name: 'placebo', retrieval: { mode: 'random' } },
    { name: 'oracle', retrieval: { mode: 'gold_query' } },
  ],
};

function configFor(dir: string, openiti: string, study?: unknown): Config {
  return parseConfig(
    {
      paths: { results_dir: dir },
      data: { openiti_root: openiti },
      corpus: { max_sentences: 400 },
      export: { shard_size: 15, query_batch_size: 16 },
      rag: {
        embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
        embedding: { model_dir: MINILM.dir, query_prefix: '', passage_prefix: '', threads: 2 },
      },
      datasets: { adab: { type: 'paired_dir', path: path.join(OCR_GS_ROOT, 'book_IbnQutayba.Adab') } },
      ...(study ? { study } : {}),
    },
    'study-export test',
    { env: {} },
  );
}

async function exportAll(input: StageInput) {
  const plan = await planExport(input);
  for (const shard of plan.datasets.flatMap((d) => d.shards)) await exportShard({ input, shard });
  return mergeExport({ input, plan });
}

describe('stages/export with study arms (real data)', function () {
  this.timeout(600000);
  let dir: string;
  let input: StageInput;
  let merged: Awaited<ReturnType<typeof exportAll>>;
  let openiti: string;

  before(async function () {
    openiti = requireSharedData(this, 'openiti');
    requireSharedData(this, 'ocr-gs');
    requireModel(this, MINILM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'study-export-'));
    input = { run: 'study-export', config: configFor(dir, openiti, STUDY), options: { limit: 30 }, force: false };
    await buildCorpus(input);
    await buildIndex(input);
    merged = await exportAll(input);
  });

  it('exports once per distinct retrieval: rag, rag_same and zero_shot share one; k1, placebo and oracle get their own', () => {
    expect(readdirSync(path.join(dir, 'exports')).sort()).to.deep.equal(merged.exports!.map((e) => e.fingerprint).sort());
    expect(merged.exports!.map((e) => [e.mode, e.arms])).to.deep.equal([
      ['dense', ['zero_shot', 'rag', 'rag_same']],
      ['dense', ['rag_k1']],
      ['random', ['placebo']],
      ['gold_query', ['oracle']],
    ]);
    for (const e of merged.exports!) expect(records(e.path)).to.have.length(30);
  });

  it('every arm dir has arm.json (contract fields) and inference_input.jsonl as a relative link to its shared export', () => {
    for (const arm of STUDY.arms) {
      const armDir = path.join(dir, 'arms', arm.name);
      const meta = JSON.parse(readFileSync(path.join(armDir, 'arm.json'), 'utf8'));
      expect(meta).to.have.all.keys(
        'name',
        'prompt',
        'retrieval',
        'upper_bound',
        'model',
        'guard',
        'verbatim_gold_rate',
        'prompt_template',
        'decoding',
        'backend',
        'prompt_prefix',
      );
      expect(meta.prompt_template.sha256).to.match(/^[0-9a-f]{64}$/);
      expect(meta.prompt_prefix.lines).to.be.greaterThan(0);
      const link = path.join(armDir, 'inference_input.jsonl');
      expect(lstatSync(link).isSymbolicLink()).to.equal(true);
      expect(path.isAbsolute(readlinkSync(link))).to.equal(false);
      expect(path.resolve(armDir, readlinkSync(link))).to.equal(
        path.join(dir, 'exports', meta.retrieval.fingerprint, 'inference_input.jsonl'),
      );
    }
    const oracle = JSON.parse(readFileSync(path.join(dir, 'arms', 'oracle', 'arm.json'), 'utf8'));
    expect(oracle).to.deep.include({ upper_bound: true, prompt: 'rag' });
    expect(oracle.retrieval.mode).to.equal('gold_query');
    const zs = JSON.parse(readFileSync(path.join(dir, 'arms', 'zero_shot', 'arm.json'), 'utf8'));
    expect(zs).to.deep.include({ prompt: 'zero_shot', upper_bound: false, verbatim_gold_rate: null });
    expect(zs.retrieval).to.include({ mode: 'none', top_k: 0 });
  });

  it('placebo: k sentences per line, same format, differing from the rag context on ≥ 90 % of the lines', () => {
    const byMode = Object.fromEntries(merged.exports!.map((e) => [e.mode === 'dense' && e.top_k === 1 ? 'k1' : e.mode, records(e.path)]));
    const rag = byMode.dense;
    const placebo = byMode.random;
    const withContext = rag.map((r, i) => [r, placebo[i]] as const).filter(([r]) => r.prompt_type === 'rag');
    expect(withContext.length).to.be.greaterThan(20);
    for (const [r, p] of withContext) {
      expect(p.sample_id).to.equal(r.sample_id);
      expect(p.prompt_type).to.equal('rag');
      expect(p.retrieved_k).to.equal(3);
      expect(p.retrieval_context.split('\n')[0]).to.equal(r.retrieval_context.split('\n')[0]); // the same header
    }
    const differing = withContext.filter(([r, p]) => r.retrieval_context !== p.retrieval_context).length;
    expect(differing / withContext.length).to.be.at.least(0.9);
  });

  it('placebo is deterministic: another results dir draws the same sentences (byte-identical export)', async () => {
    const other = mkdtempSync(path.join(os.tmpdir(), 'study-export-b-'));
    const again: StageInput = {
      ...input,
      config: configFor(other, openiti, { arms: [{ name: 'placebo', retrieval: { mode: 'random' } }] }),
    };
    await buildCorpus(again);
    await buildIndex(again);
    const second = await exportAll(again);
    const first = merged.exports!.find((e) => e.mode === 'random')!;
    expect(sha256(second.exports![0].path)).to.equal(sha256(first.path));
  });

  it('retrieval_stats.json records the verbatim-gold rate (none for the placebo), the oracle is marked as an upper bound, arm.json repeats the rate', () => {
    const stats = Object.fromEntries(
      merged.exports!.map((e) => [
        e.mode + e.top_k,
        JSON.parse(readFileSync(path.join(dir, 'exports', e.fingerprint, 'retrieval_stats.json'), 'utf8')),
      ]),
    );
    for (const s of Object.values(stats)) expect(s.verbatim_gold).to.include.keys('rate', 'hits', 'lines', 'threshold', 'by_dataset');
    expect(stats.gold_query3.upper_bound).to.equal(true);
    expect(stats.random3.verbatim_gold.hits).to.equal(0);
    const rag = JSON.parse(readFileSync(path.join(dir, 'arms', 'rag', 'arm.json'), 'utf8'));
    expect(rag.verbatim_gold_rate).to.equal(stats.dense3.verbatim_gold.rate);
  });

  it("the default config (no study:) writes the single default export, byte-identical to the study's shared rag export", async () => {
    const plain = mkdtempSync(path.join(os.tmpdir(), 'study-export-default-'));
    const def: StageInput = { ...input, config: configFor(plain, openiti) };
    await buildCorpus(def);
    await buildIndex(def);
    const result = await exportAll(def);
    // under its settings' fingerprint; each default arm's input links to it (docs/outputs.md#one-folder-per-settings)
    expect(path.relative(plain, result.path)).to.match(/^exports\/[0-9a-f]{16}\/inference_input\.jsonl$/);
    for (const arm of ['rag', 'zero_shot'])
      expect(sha256(path.join(plain, 'arms', arm, 'inference_input.jsonl'))).to.equal(sha256(result.path));
    expect(result.exports).to.equal(undefined);
    expect(existsSync(path.join(plain, 'phase5')) || existsSync(path.join(plain, 'arms', 'rag', 'arm.json'))).to.equal(false);
    const shared = merged.exports!.find((e) => e.arms.includes('rag'))!;
    expect(sha256(result.path)).to.equal(sha256(shared.path));
  });
});
