/**
 * The Lines view, the examples and the error classes over the study arms (`<results>/arms/<arm>/`):
 * `studyArmSources` turns the analysed arms into Lines-view arms (each with its own inference_input.jsonl for
 * the retrieved sentences); `writeArmsLineDocuments` writes lines.json and error_classes.json to
 * `<results>/study/` for a study without rag corrections of its own — there the lines are the baseline
 * arm's (its inference input, then any corrected line the input lacks), gold and OCR from those records.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { replicateFolders } from '../study/replicates';
import path from 'node:path';
import { writeJsonAtomic } from '../../src/io/jsonl';
import type { ArmResult, ArmsAnalysis } from '../study/arms';
import { armsRoot } from '../inputs/arm-inputs';
import { sourceHitMatcher } from '../inputs/leakage';
import { loadFile, parseInferenceInput } from '../inputs/records';
import { loadExtraArms, type ArmSource, type LineArm } from './line-arms';
import { lineKey } from '../inputs/records';
import { errorClassesDocument, explorerLines, linesDocument, type LineSource, type LineText, type LinesOptions } from './explorer-lines';
import { writeLinesJson } from './lines-json';
import type { DatasetInfo } from '../types';

export const LINE_DOCUMENTS = ['lines.json', 'error_classes.json'] as const;

/** An arm whose prompt shows retrieved sentences (a zero-shot arm reads the shared export but ignores its context). */
const showsContext = (a: ArmResult) => a.prompt === 'rag' && a.retrieval?.mode !== 'none';

/** The analysed study arms (skipped ones left out) as arms of the Lines view, in arms.json order. */
export function studyArmSources(resultsDir: string, a: ArmsAnalysis): ArmSource[] {
  return a.arms.map((arm) => {
    const dir = path.join(armsRoot(resultsDir), arm.name);
    return {
      name: arm.name,
      correctionsPath: path.join(dir, 'corrections.jsonl'),
      ...(showsContext(arm) ? { inferenceInputPath: path.join(dir, 'inference_input.jsonl') } : {}),
      retrievalMode: arm.retrieval?.mode ?? (arm.prompt === 'zero_shot' ? 'none' : undefined),
      upperBound: arm.upper_bound,
      ...replicatePaths(dir, arm),
    };
  });
}

/** The corrections of the arm's replicates 1 … that the analysis scored (arms.json `replicates.n` of them), in replicate order. */
function replicatePaths(dir: string, arm: ArmResult): Pick<ArmSource, 'replicatePaths'> {
  const n = arm.replicates?.n ?? 1;
  if (n <= 1) return {};
  const files = replicateFolders(dir, Infinity)
    .used.slice(0, n - 1)
    .map((r) => path.join(r.dir, 'corrections.jsonl'));
  return { replicatePaths: files };
}

export interface ArmsLinesOptions {
  resultsDir: string;
  arms: ArmsAnalysis;
  collapseWhitespace?: boolean;
  datasetInfo?: Record<string, DatasetInfo>;
  /** false: write nothing and remove an earlier run's documents. */
  lines?: boolean;
}

/** lines.json and error_classes.json of every study arm in `<results>/study/`; returns the files written (relative to it). */
export async function writeArmsLineDocuments(o: ArmsLinesOptions): Promise<string[]> {
  const dir = path.join(o.resultsDir, 'study');
  if (o.lines === false) {
    for (const f of LINE_DOCUMENTS) rmSync(path.join(dir, f), { force: true });
    return [];
  }
  const arms = await loadExtraArms(studyArmSources(o.resultsDir, o.arms), o.arms.datasets, []);
  const base = arms.find((a) => a.name === o.arms.baseline)!;
  const source = await baselineLines(path.join(armsRoot(o.resultsDir), base.name, 'inference_input.jsonl'), base, o.arms.datasets);
  const info = o.datasetInfo ?? {};
  const lineOpts: LinesOptions = {
    collapseWhitespace: o.collapseWhitespace ?? true,
    baseline: base.name,
    sourceMatcher: (ds) => sourceHitMatcher(info[ds]),
    sourceExcluded: (ds) => info[ds]?.excluded ?? null,
    provenance: true,
  };
  const { lines, classes } = explorerLines(source, arms, lineOpts);
  mkdirSync(dir, { recursive: true });
  writeLinesJson(path.join(dir, 'lines.json'), linesDocument(lines, arms, lineOpts, o.arms.generated_at, o.arms.datasets));
  writeJsonAtomic(path.join(dir, 'error_classes.json'), errorClassesDocument(classes, arms, o.arms.generated_at));
  return [...LINE_DOCUMENTS];
}

/** The baseline arm's lines: its inference input (when there is one) in file order, then corrected lines the input lacks. */
async function baselineLines(inputFile: string, base: LineArm, datasets: readonly string[]): Promise<LineSource> {
  const records: LineText[] = [];
  if (base.inputs) records.push(...base.inputs.values());
  else if (existsSync(inputFile)) {
    const input = await loadFile(inputFile, parseInferenceInput, (d) => datasets.includes(d));
    for (const list of input.byDataset.values()) records.push(...list.map((x) => x.record));
  }
  records.push(...[...base.corrections.values()].map((x) => x.record));
  const byDataset = new Map<string, Array<{ record: LineText }>>();
  const seen = new Set<string>();
  for (const r of records) {
    const key = lineKey(r.dataset, r.sample_id);
    if (seen.has(key)) continue;
    seen.add(key);
    let list = byDataset.get(r.dataset);
    if (!list) byDataset.set(r.dataset, (list = []));
    list.push({ record: r });
  }
  return { datasets, byDataset };
}
