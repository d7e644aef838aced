/**
 * A witness arm whose index is cut into 4 shards (`retrieval.witness.shards: 4`) exports exactly the bytes of the
 * same arm over one index (real data: the Adab source work and the works of 279 AH, 210 OCR lines of the Adab book).
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStageCalls } from '../helpers/stage-calls';
import { parseConfig } from '../../src/config/load';
import type { StageInput } from '../../src/stages/types';
import { readShardedManifest } from '../../src/witness';
import { MINILM, requireModel } from '../embed/models';
import { OCR_GS_ROOT, requireSharedData } from '../helpers/shared-data';

const { buildCorpus, buildIndex, exportShard, mergeExport, planExport } = createStageCalls();
const SOURCE = '0276IbnQutaybaDinawari.AdabKatib.JK000973-ara1';

describe('stages: a witness export over 4 index shards equals one index’s (real data)', function () {
  this.timeout(900000);
  let dir: string;

  before(async function () {
    const openiti = requireSharedData(this, 'openiti');
    requireSharedData(this, 'ocr-gs');
    requireModel(this, MINILM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'witness-shards-export-'));
    const witness = (shards: number) => ({ mode: 'witness', top_k: 3, witness: { works: [SOURCE, '0279*'], min_score: 0.5, shards } });
    const config = parseConfig(
      {
        paths: { results_dir: dir },
        data: { openiti_root: openiti },
        phase5: { corpus: { max_sentences: 200 }, export: { shard_size: 70, query_batch_size: 32 } },
        rag: {
          embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
          embedding: { model_dir: MINILM.dir, query_prefix: '', passage_prefix: '', threads: 2 },
        },
        datasets: { adab: { type: 'paired_dir', path: path.join(OCR_GS_ROOT, 'book_IbnQutayba.Adab') } },
        study: {
          baseline: 'zero_shot',
          arms: [
            { name: 'zero_shot', prompt: 'zero_shot' },
            { name: 'one', retrieval: witness(1) },
            { name: 'four', retrieval: witness(4) },
          ],
        },
      },
      'witness-shards-export test',
      { env: {} },
    );
    const input: StageInput = { run: 'witness-shards-export', config, options: { limit: 210 }, force: false };
    await buildCorpus(input);
    await buildIndex(input);
    const plan = await planExport(input);
    for (const shard of plan.datasets.flatMap((d) => d.shards)) await exportShard({ input, shard });
    await mergeExport({ input, plan });
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('builds one index and one of 4 shards', () => {
    const dirs = readdirSync(path.join(dir, 'witness')).map((fp) => path.join(dir, 'witness', fp));
    expect(dirs.map((d) => readShardedManifest(d)?.shards.length ?? 1).sort()).to.deep.equal([1, 4]);
  });

  it('the two arms’ inference_input.jsonl are byte-identical, with witness hits in them', () => {
    const read = (arm: string) => readFileSync(path.join(dir, 'arms', arm, 'inference_input.jsonl'), 'utf8');
    const one = read('one');
    expect(one.split('\n').filter(Boolean)).to.have.length(210);
    expect(one).to.include(SOURCE);
    expect(read('four')).to.equal(one);
  });
});
