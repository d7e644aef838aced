/**
 * A study arm in witness mode on real data: the build stage builds the witness index once (under
 * <results>/witness/<fingerprint>/, reused on a second build), and the arm's export puts the aligned passage of
 * the OCR line's source work in the context, with its position (lines, page) in retrieval_sources.
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { parseConfig } from '../../../src/config/load';
import type { InferenceInputRecord } from '../../../src/llm/records';
import type { StageInput } from '../../../src/stages/shared/types';
import { MINILM, requireModel } from '../../embed/models';
import { OCR_GS_ROOT, requireSharedData } from '../../helpers/shared-data';
import { createStageCalls } from '../../helpers/stage-calls';

const { buildCorpus, buildIndex, exportShard, mergeExport, planExport } = createStageCalls();
const SOURCE = '0276IbnQutaybaDinawari.AdabKatib.JK000973-ara1';

describe('stages: retrieval.mode witness (real data)', function () {
  this.timeout(600000);
  let dir: string;
  let input: StageInput;

  before(async function () {
    const openiti = requireSharedData(this, 'openiti');
    requireSharedData(this, 'ocr-gs');
    requireModel(this, MINILM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'witness-export-'));
    const config = parseConfig(
      {
        paths: { results_dir: dir },
        data: { openiti_root: openiti },
        corpus: { max_sentences: 200 },
        export: { shard_size: 10, query_batch_size: 8 },
        rag: {
          embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
          embedding: { model_dir: MINILM.dir, query_prefix: '', passage_prefix: '', threads: 2 },
        },
        datasets: {
          adab: {
            type: 'paired_dir',
            path: path.join(OCR_GS_ROOT, 'book_IbnQutayba.Adab'),
            source_pattern: '0276IbnQutaybaDinawari.AdabKatib*',
          },
        },
        study: {
          baseline: 'zero_shot',
          arms: [
            { name: 'zero_shot', prompt: 'zero_shot' },
            { name: 'witness', retrieval: { mode: 'witness', top_k: 2, witness: { works: [SOURCE, '0279*'], min_score: 0.6 } } },
          ],
        },
      },
      'witness-export test',
      { env: {} },
    );
    input = { run: 'witness-export', config, options: { limit: 210 }, force: false };
    await buildCorpus(input);
    await buildIndex(input);
    const plan = await planExport(input);
    for (const shard of plan.datasets.flatMap((d) => d.shards)) await exportShard({ input, shard });
    await mergeExport({ input, plan });
  });

  it('builds the witness index in the build stage, once', async () => {
    const [fp] = readdirSync(path.join(dir, 'witness'));
    const manifest = path.join(dir, 'witness', fp, 'witness.json');
    const works = (JSON.parse(readFileSync(manifest, 'utf8')) as { works: { uri: string }[] }).works.map((w) => w.uri);
    expect(works).to.include(SOURCE);
    expect(works.every((w) => w === SOURCE || w.startsWith('0279'))).to.equal(true);
    const before = statSync(manifest).mtimeMs;
    await buildCorpus(input);
    expect(statSync(manifest).mtimeMs).to.equal(before);
  });

  it("puts the OCR line's aligned source passage in the context, with its lines and page", () => {
    const records = readFileSync(path.join(dir, 'arms', 'witness', 'inference_input.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as InferenceInputRecord);
    expect(records).to.have.length(210);
    const r = records.find((x) => x.sample_id === 'adab/000206')!;
    expect(r.prompt_type).to.equal('rag');
    expect(r.retrieval_context).to.include('قال الفراء أريد بهن ( فعلولة ) ففتحوا أولها كراهية أن تصير الياء');
    expect(r.retrieval_sources[0]).to.deep.include({
      source_uri: SOURCE,
      line: 6855,
      line_end: 6855,
      page: 'PageV01P496',
      provenance: 'same_passage',
    });
    expect(r.gold_in_context).to.equal(true);
    // hits from the other indexed works are classed as such; a line whose hit is not its passage says so
    const classes = records.flatMap((x) => x.retrieval_sources.map((src) => [src.source_uri.startsWith('0279'), src.provenance]));
    expect(classes.filter(([other]) => other).every(([, p]) => p === 'other_work' || p === 'same_passage')).to.equal(true);
    expect(records.some((x) => x.prompt_type === 'rag' && x.gold_in_context === false)).to.equal(true);
    // lines whose best alignment is below min_score get no context (the zero-shot fallback), never a random passage
    expect(records.filter((x) => x.prompt_type === 'rag').every((x) => x.retrieval_scores.every((s) => s >= 0.6))).to.equal(true);
  });
});
