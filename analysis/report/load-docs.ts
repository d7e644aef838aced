/** The analysis documents the report reads from the rag arm's folder (metrics, comparisons, retrieval, lines). */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Skips } from '../../src/stages/shared/skips';
import type { ReportDocs } from '../charts/specs';
import { readLinesJson } from '../lines/lines-json';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function readJsonSync(file: string): Json {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Json;
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

/** The export's skipped.json: beside the inference_input.jsonl the arm read (its link followed). */
function skippedBesideInput(ragDir: string): string {
  const input = path.join(ragDir, 'inference_input.jsonl');
  return path.join(path.dirname(existsSync(input) ? realpathSync(input) : input), 'skipped.json');
}

/** Load what the report needs; throws a clear error when the analysis has not run yet. */
export function loadReportDocs(ragDir: string): ReportDocs {
  const mFile = path.join(ragDir, 'metrics.json');
  const cFile = path.join(ragDir, 'comparison.json');
  for (const f of [mFile, cFile]) if (!existsSync(f)) throw new Error(`${f} not found: run the analyze stage first`);
  const metrics = readJsonSync(mFile);
  const comparison = readJsonSync(cFile);
  const ecFile = path.join(ragDir, 'error_changes.json');
  const names: string[] = metrics.meta?.datasets ?? [];
  const opt = (f: string) => (existsSync(f) ? readJsonSync(f) : null);
  return {
    metrics,
    comparison,
    errorChanges: opt(ecFile),
    skippedInputs: opt(skippedBesideInput(ragDir)) as Record<string, Skips> | null,
    ...loadLineDocs(ragDir),
    datasets: names.map((name) => {
      const dir = path.join(ragDir, name);
      return {
        name,
        metrics: readJsonSync(path.join(dir, 'metrics.json')),
        comparison: readJsonSync(path.join(dir, 'comparison_vs_phase2.json')),
        retrieval: opt(path.join(dir, 'retrieval_analysis.json')),
        errorChanges: opt(path.join(dir, 'error_changes.json')),
      };
    }),
  };
}

/** lines.json and error_classes.json of `dir` (null each when the analysis ran without the Lines view). */
export function loadLineDocs(dir: string): { lines: Json | null; errorClasses: Json | null } {
  const opt = (f: string, read: (f: string) => Json) => (existsSync(f) ? read(f) : null);
  return { lines: opt(path.join(dir, 'lines.json'), readLinesJson), errorClasses: opt(path.join(dir, 'error_classes.json'), readJsonSync) };
}
