/**
 * What the OCR_GS arms benches (bench/arms-ocrgs.ts, bench/witness-arms.ts) share: the demo config pointed at all
 * five OCR_GS books with the OpenITI versions of their sources, and corrections imported into an arm — written
 * from the arm's own inference_input.jsonl by a policy, no LLM.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { rebasePaths } from '../src/config/relative-paths';
import type { createActivities } from '../activities';
import { isVerbatimGold } from '../src/retrieval/verbatim';
import { OCR_GS_ROOT, REPO_ROOT } from '../test/helpers/shared-data';
import type { StageInput } from '../workflows/types';

const BOOKS = ['IbnAthir.Kamil', 'IbnFaqihHamadhani.Buldan', 'IbnQutayba.Adab', 'Jahiz.Hayawan', 'Yacqubi.Tarikh'];
const SOURCES: Record<string, string> = {
  'IbnQutayba.Adab': '0276IbnQutaybaDinawari.AdabKatib*',
  'Yacqubi.Tarikh': '0292Yacqubi.Tarikh*',
  'Jahiz.Hayawan': '0255Jahiz.Hayawan*',
};

/** configs/demo.yaml as loose YAML (edited by key, then parsed) with its results, OpenITI root and the five books. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the demo config as loose YAML, edited by key
export function ocrgsDemoConfig(runName: string, results: string, bootstrapIterations: number): Record<string, any> {
  const raw = YAML.parse(readFileSync(path.join(REPO_ROOT, 'configs', 'demo.yaml'), 'utf8')) as unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  const demo = rebasePaths(raw, path.join(REPO_ROOT, 'configs')) as Record<string, any>;
  demo.run_name = runName;
  demo.paths = { results_dir: results };
  demo.data = { openiti_root: path.join(path.dirname(OCR_GS_ROOT), 'openiti') };
  demo.datasets = Object.fromEntries(
    BOOKS.map((b) => [
      `OCR_GS-${b}`,
      { type: 'paired_dir', path: path.join(OCR_GS_ROOT, `book_${b}`), ...(SOURCES[b] ? { source_pattern: SOURCES[b] } : {}) },
    ]),
  );
  demo.analysis = { bootstrap_iterations: bootstrapIterations };
  return demo;
}

export type ArmRecord = { sample_id: string; dataset: string; ocr_text: string; gt_text: string; retrieval_context: string };
/** The correction of the i-th record of an arm's input. */
export type ImportPolicy = (r: ArmRecord, i: number) => string;

/** The gold line when the context holds it verbatim (src/retrieval/verbatim.ts), else the OCR line. */
export const copyGoldInContext: ImportPolicy = (r) =>
  r.retrieval_context !== '' && isVerbatimGold(r.gt_text, r.retrieval_context) ? r.gt_text : r.ocr_text;

/** Write the arm's corrections by `policy` from its inference_input.jsonl and import them into the arm. */
export async function importArm(
  acts: ReturnType<typeof createActivities>,
  input: StageInput,
  results: string,
  arm: string,
  policy: ImportPolicy,
): ReturnType<ReturnType<typeof createActivities>['importCorrections']> {
  const recs = readFileSync(path.join(results, 'arms', arm, 'inference_input.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ArmRecord);
  const prompt = arm === 'identity' ? 'zero_shot' : 'rag';
  const lines = recs.map((r, i) => {
    const text = policy(r, i);
    return JSON.stringify({
      sample_id: r.sample_id,
      dataset: r.dataset,
      prompt_type: prompt,
      prompt_version: 'bench',
      model: 'bench/none',
      ocr_text: r.ocr_text,
      gt_text: r.gt_text,
      corrected_text: text,
      raw_output: text,
      error: null,
    });
  });
  const file = path.join(results, `import-${arm}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return acts.importCorrections({ ...input, options: { importFile: file, arm } });
}
