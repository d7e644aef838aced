/**
 * What a finished stage skipped or repaired, as short human lines: `describeSkips(stage, result)`. The CLI
 * prints them after a stage (and `phase5 status` for a finished workflow); nothing when nothing was skipped.
 * Results from older code without `skipped` fields describe as nothing.
 */
import path from 'node:path';
import { describeKinds as describeWith, totalSkips, type Skips } from '../../src/stages/shared/skips';
import type { StageName } from '../../src/config/schema';
import { asBatchResult } from './batch-summary';
import type { BuildResult, ExportResult, InferResult, Phase5Result } from '../../workflows/types';

type Described = StageName | 'run';

/** Lines for one stage's (or the whole study's) result; [] when nothing was skipped. */
export function describeSkips(stage: Described, result: unknown): string[] {
  if (!result || typeof result !== 'object') return [];
  switch (stage) {
    case 'build':
      return buildSkips(result as BuildResult);
    case 'export':
      return exportSkips(result as ExportResult);
    case 'infer':
      return inferSkips(result as InferResult);
    case 'run': {
      const r = result as Phase5Result;
      return [...describeSkips('build', r.build), ...describeSkips('export', r.export), ...describeSkips('infer', r.infer)];
    }
    default:
      return [];
  }
}

/** The stage a workflow type runs (`exportWorkflow` → export, `phase5Workflow` → run), or null. */
export function stageOfWorkflowType(type: string): Described | null {
  if (type === 'phase5Workflow') return 'run';
  if (type === 'batchInferWorkflow') return 'infer';
  const m = /^(build|export|infer|analyze)Workflow$/.exec(type);
  return m ? (m[1] as StageName) : null;
}

function buildSkips(r: BuildResult): string[] {
  const skips = r.corpus?.skipped;
  const n = totalSkips(skips);
  return n > 0 ? [`build skipped ${n} corpus input(s): ${describeKinds(skips)}`] : [];
}

function exportSkips(r: ExportResult): string[] {
  const per = Object.entries(r.merged?.skipped ?? {}).filter(([, s]) => totalSkips(s) > 0);
  if (per.length === 0) return [];
  const n = per.reduce((a, [, s]) => a + totalSkips(s), 0);
  return [
    `export skipped ${n} input line(s)/file(s) in ${per.length} dataset(s):`,
    ...per.map(([dataset, s]) => `  ${dataset} — ${describeKinds(s)}`),
  ];
}

function inferSkips(r: InferResult): string[] {
  // The batch import's summary line already counts what it left out (bin/cli/batch-summary.ts).
  if ('imported' in r || asBatchResult(r)) return [];
  const lines: string[] = [];
  for (const [arm, c] of Object.entries(r)) {
    const n = totalSkips(c?.skipped);
    if (n > 0) lines.push(`infer ${arm} skipped ${n} line(s): ${describeKinds(c!.skipped)}`);
  }
  return lines;
}

/** The kinds with counts and examples, paths relative to the working directory. */
export function describeKinds(skips: Skips): string {
  return describeWith(skips, shortPath);
}

function shortPath(p: string): string {
  if (!path.isAbsolute(p)) return p;
  const rel = path.relative(process.cwd(), p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}
