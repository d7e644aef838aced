/**
 * The export's shard files (src/stages/export/shard-files.ts): resume reads the sample_ids already written, a finished
 * shard is made canonical (sample order, first record of a duplicate wins, fallbacks counted, a missing sample
 * is an error), and the merge concatenates shards in the given order and checks every dataset's count.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OcrSample } from '../../../src/datasets';
import { compactShard, concatShards, sampleIdsIn } from '../../../src/stages/export/shard-files';

const dir = () => mkdtempSync(path.join(os.tmpdir(), 'export-files-'));
const sample = (id: string): OcrSample => ({ sample_id: id, dataset: 'd', ocr_text: 'x', gt_text: 'y' });
const rec = (id: string, promptType = 'rag') => JSON.stringify({ sample_id: id, prompt_type: promptType });

describe('stages/export-files', () => {
  it('sampleIdsIn: the ids already written, none for a missing file', async () => {
    const d = dir();
    const f = path.join(d, 'shard.jsonl');
    expect((await sampleIdsIn(f)).size).to.equal(0);
    writeFileSync(f, `${rec('a')}\n${rec('b')}\n`);
    expect([...(await sampleIdsIn(f))]).to.deep.equal(['a', 'b']);
  });

  it('compactShard: sample order, the first record of a duplicate, fallbacks counted; a missing sample throws', () => {
    const f = path.join(dir(), 'shard.jsonl');
    writeFileSync(f, `${rec('b', 'zero_shot_fallback')}\n${rec('a')}\n${rec('b', 'zero_shot_fallback')}\n`);
    expect(compactShard(f, [sample('a'), sample('b')])).to.deep.equal({ fallbacks: 1, duplicates: 1 });
    expect(readFileSync(f, 'utf8')).to.equal(`${rec('a')}\n${rec('b', 'zero_shot_fallback')}\n`);
    expect(() => compactShard(f, [sample('a'), sample('b'), sample('c')])).to.throw(/1 sample\(s\) have no record \(first: c\)/);
  });

  it('concatShards: datasets and their shard files in the order given; a count that does not match fails the merge', async () => {
    const d = dir();
    const files = ['x0', 'x1', 'y0'].map((n) => path.join(d, `${n}.jsonl`));
    writeFileSync(files[0], `${rec('x/1')}\n`);
    writeFileSync(files[1], `${rec('x/2')}\n${rec('x/3')}\n`);
    writeFileSync(files[2], `${rec('y/1')}\n`);
    const target = path.join(d, 'out', 'inference_input.jsonl');
    const counts = await concatShards(target, [
      { dataset: 'y', samples: 1, files: [files[2]] },
      { dataset: 'x', samples: 3, files: [files[0], files[1]] },
    ]);
    expect(counts).to.deep.equal({ y: 1, x: 3 });
    expect(readFileSync(target, 'utf8')).to.equal([rec('y/1'), rec('x/1'), rec('x/2'), rec('x/3')].join('\n') + '\n');
    const bad = path.join(d, 'bad.jsonl');
    let err: Error | null = null;
    await concatShards(bad, [{ dataset: 'x', samples: 4, files: [files[0], files[1]] }]).catch((e: Error) => (err = e));
    expect(err!.message).to.equal('dataset x: merged 3 records, expected 4');
    expect(existsSync(bad), 'no partial target').to.equal(false);
  });
});
