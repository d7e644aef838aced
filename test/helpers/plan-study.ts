/**
 * A small study on the simulated box for the `phase5 plan` tests: real OCR_GS lines, arms zero_shot (the
 * baseline), rag (2 replicates) and a placebo, their exports written as
 * `phase5 export` writes them (arm.json, inference_input.jsonl with a context for the rag-prompt arms).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { OcrSample } from '../../src/datasets';
import { replicateRuns } from '../../src/stages/study/replicates';
import { writeArmDirs } from '../../src/stages/study/arm-files';
import { studyPlan } from '../../src/stages/study/plan';
import type { SimLlmServer } from './sim-llm-server';

export const ARMS = [
  { name: 'zero_shot', prompt: 'zero_shot' },
  { name: 'rag', replicates: 2 },
  { name: 'placebo', retrieval: { mode: 'random' } },
];

/** A study config on the box. */
export function studyConfig(
  root: string,
  box: SimLlmServer,
  datasets: Record<string, string>,
  study: Record<string, unknown> = {},
): { config: Config } {
  const raw = (arms: unknown[]) => ({
    paths: { results_dir: root },
    datasets: Object.fromEntries(Object.entries(datasets).map(([k, p]) => [k, { type: 'jsonl', path: p }])),
    infer: { backend: 'openai', openai: { base_url: box.url, model: 'sim', max_tokens: 64, adaptive_concurrency: false, concurrency: 8 } },
    study: { arms, ...study },
  });
  return { config: parseConfig(raw(ARMS), 'plan-test.yaml', { env: {} }) };
}

/** Every arm's export, as `phase5 export` writes it: rag-style arms get a context (the gold of the next lines). */
export async function writeExports(config: Config, lines: OcrSample[]): Promise<void> {
  await writeArmDirs(studyPlan(config, {}).declared, []);
  for (const arm of studyPlan(config, {}).arms) {
    mkdirSync(path.dirname(arm.input), { recursive: true });
    const rows = lines.map((s, i) => ({
      sample_id: s.sample_id,
      dataset: s.dataset,
      ocr_text: s.ocr_text,
      gt_text: s.gt_text,
      retrieval_context:
        arm.prompt === 'rag'
          ? lines
              .slice(i + 1, i + 4)
              .map((x) => x.gt_text)
              .join('\n') || null
          : null,
    }));
    writeFileSync(arm.input, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
}

/** The prompt tokens the box reported for every corrected line of every arm. */
export function servedPromptTokens(config: Config): number {
  let n = 0;
  for (const run of studyPlan(config, {}).arms.flatMap(replicateRuns))
    for (const line of readFileSync(run.output, 'utf8').split('\n').filter(Boolean))
      n += (JSON.parse(line) as { prompt_tokens: number }).prompt_tokens;
  return n;
}

/** The first `perBook` lines of two OCR_GS books, written as two JSONL datasets under `root`. */
export function writeStudyDatasets(
  all: OcrSample[],
  root: string,
  perBook: number,
): { lines: OcrSample[]; datasets: Record<string, string> } {
  const lines = ['OCR_GS-IbnQutayba.Adab', 'OCR_GS-Jahiz.Hayawan'].flatMap((d) => all.filter((s) => s.dataset === d).slice(0, perBook));
  const datasets: Record<string, string> = {};
  for (const d of new Set(lines.map((s) => s.dataset))) {
    datasets[d] = path.join(root, `${d}.jsonl`);
    const mine = lines.filter((s) => s.dataset === d);
    writeFileSync(
      datasets[d],
      mine.map((s) => JSON.stringify({ sample_id: s.sample_id, ocr_text: s.ocr_text, gt_text: s.gt_text })).join('\n') + '\n',
    );
  }
  return { lines, datasets };
}
