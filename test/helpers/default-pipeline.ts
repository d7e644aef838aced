/**
 * A small default-config study (no `study:` block) run by calling the activities directly: the real OpenITI
 * slice, two OCR_GS books, the real e5 ONNX model, and a deterministic stand-in LLM whose answers depend only on
 * the prompt (so the prompts are part of what the outputs pin). Every analysis input's mtime is pinned, since
 * `generated_at` is the newest input's mtime.
 */
import { createHash } from 'node:crypto';
import { readFileSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { defaultDeps } from '../../activities';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { readJsonlAll } from '../../src/io/jsonl';
import type { LlmBackend } from '../../src/llm';
import type { InferenceInputRecord } from '../../src/llm/records';
import type { StageInput } from '../../workflows/types';
import { OCR_GS_ROOT, OPENITI_ROOT } from './shared-data';
import { createStageCalls, type StageCalls } from './stage-calls';

export const INPUTS_AS_OF = new Date('2024-03-01T12:00:00.000Z');
export const LIMIT = 12;

export function defaultConfig(resultsDir: string): Config {
  return parseConfig(
    {
      paths: { results_dir: resultsDir },
      data: { openiti_root: OPENITI_ROOT },
      corpus: { max_sentences: 300, seed: 42 },
      export: { shard_size: 5, query_batch_size: 8, checkpoint_every: 3 },
      datasets: {
        'OCR_GS-IbnQutayba.Adab': {
          type: 'paired_dir',
          path: path.join(OCR_GS_ROOT, 'book_IbnQutayba.Adab'),
          source_pattern: '0276IbnQutaybaDinawari.AdabKatib*',
        },
        'OCR_GS-Jahiz.Hayawan': { type: 'paired_dir', path: path.join(OCR_GS_ROOT, 'book_Jahiz.Hayawan') },
      },
      analysis: { bootstrap_iterations: 200, bootstrap_seed: 7 },
    },
    'test/default-bytes',
    { env: {} },
  );
}

/**
 * The stand-in model: by a hash of the whole prompt it answers the gold line, the OCR line, the OCR line after
 * a preamble, or the OCR line doubled — so rag and zero_shot answer differently and the cleaning is exercised.
 */
export function promptHashBackend(inputFile: string): () => Promise<LlmBackend> {
  return async () => {
    const gold = new Map<string, string>();
    for (const r of await readJsonlAll<InferenceInputRecord>(inputFile)) if (!gold.has(r.ocr_text)) gold.set(r.ocr_text, r.gt_text);
    return {
      id: 'prompt-hash',
      model: 'prompt-hash',
      concurrency: 2,
      async complete(messages) {
        const ocr = messages[messages.length - 1].content;
        const h =
          createHash('sha256')
            .update(messages.map((m) => m.content).join('\u0000'))
            .digest()[0] % 4;
        const text = [gold.get(ocr) ?? ocr, ocr, `Here is the corrected text:\n${ocr}`, `${ocr} ${ocr}`][h];
        return { text, promptTokens: ocr.length, completionTokens: text.length, latencyMs: 3, attempts: 1 };
      },
      async close() {},
    };
  };
}

export type Activities = StageCalls;

/** build → export → infer (via `infer`) → analyze into `dir`; returns the rag arm's folder (where the analysis writes). */
export async function runDefaultPipeline(dir: string, infer: (acts: Activities, input: StageInput) => Promise<void>): Promise<string> {
  const config = defaultConfig(dir);
  const input: StageInput = { run: 'default-bytes', config, options: { limit: LIMIT }, force: false };
  const inputFile = path.join(config.paths.results_dir, 'arms', 'rag', 'inference_input.jsonl');
  const acts = createStageCalls({ ...defaultDeps(), openBackend: promptHashBackend(inputFile) });
  await acts.buildCorpus(input);
  await acts.buildIndex(input);
  const plan = await acts.planExport(input);
  for (const shard of plan.datasets.flatMap((d) => d.shards)) await acts.exportShard({ input, shard });
  await acts.mergeExport({ input, plan });
  await infer(acts, input);
  for (const f of [
    inputFile,
    path.join(dir, 'arms', 'rag', 'corrections.jsonl'),
    path.join(dir, 'arms', 'zero_shot', 'corrections.jsonl'),
  ]) {
    utimesSync(f, INPUTS_AS_OF, INPUTS_AS_OF);
  }
  await acts.analyzeResults(input);
  return path.join(dir, 'arms', 'rag');
}

export function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}
