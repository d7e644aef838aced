/**
 * The study both witness-shard tests run (test/stages/witness/witness-shards-export.test.ts, test/workflows/witness-scatter.test.ts):
 * Ibn Qutayba's OCR_GS lines, a zero-shot arm and two witness arms over the same works, one index against four
 * shards, so the two exports can be compared byte for byte.
 */
import path from 'node:path';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { MINILM } from '../embed/models';
import { OCR_GS_ROOT } from './shared-data';

export const WITNESS_SOURCE = '0276IbnQutaybaDinawari.AdabKatib.JK000973-ara1';

export function witnessShardsStudy(dir: string, openiti: string, extra: Record<string, unknown> = {}): Config {
  const witness = (shards: number) => ({
    mode: 'witness',
    top_k: 3,
    witness: { works: [WITNESS_SOURCE, '0279*'], min_score: 0.5, shards },
  });
  return parseConfig(
    {
      paths: { results_dir: dir },
      data: { openiti_root: openiti },
      corpus: { max_sentences: 200 },
      export: { shard_size: 70, query_batch_size: 32 },
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
      ...extra,
    },
    'witness shards test',
    { env: {} },
  );
}
