/**
 * A witness arm whose index is cut into 4 shards (`retrieval.witness.shards: 4`) exports exactly the bytes of the
 * same arm over one index (real data: the Adab source work and the works of 279 AH, 210 OCR lines of the Adab book).
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStageCalls } from '../../helpers/stage-calls';
import { witnessShardsStudy, WITNESS_SOURCE } from '../../helpers/witness-shards-study';
import type { StageInput } from '../../../src/stages/shared/types';
import { readShardedManifest } from '../../../src/witness';
import { MINILM, requireModel } from '../../embed/models';
import { requireSharedData } from '../../helpers/shared-data';

const { buildCorpus, buildIndex, exportShard, mergeExport, planExport } = createStageCalls();

describe('stages: a witness export over 4 index shards equals one index’s (real data)', function () {
  this.timeout(900000);
  let dir: string;

  before(async function () {
    const openiti = requireSharedData(this, 'openiti');
    requireSharedData(this, 'ocr-gs');
    requireModel(this, MINILM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'witness-shards-export-'));
    const config = witnessShardsStudy(dir, openiti);
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
    expect(one).to.include(WITNESS_SOURCE);
    expect(read('four')).to.equal(one);
  });
});
