/**
 * Inputs a stage skipped or repaired, by kind: a complete count and up to three examples (`file:line`, a file
 * name or a sample_id). Every stage's typed result carries them so the CLI, `phase5 status` and the report can
 * say what was left out without anyone reading the worker's log.
 */
import { PROBLEM_KINDS, type DatasetProblems, type ProblemKind } from '../../datasets/types';

/** Examples kept per kind in stage results (the counts are always complete). */
export const MAX_SKIP_EXAMPLES = 3;

export interface SkipKind {
  count: number;
  examples: string[];
}

/** Kind → count and examples; only kinds with a non-zero count are present. */
export type Skips = Record<string, SkipKind>;

/** Human names of the dataset loaders' problem kinds, as the CLI and the report print them. */
export const PROBLEM_LABELS: Record<ProblemKind, string> = {
  missingOcr: 'gold file without OCR file',
  missingGt: 'OCR file without gold file',
  unreadable: 'unreadable / not UTF-8',
  emptyGt: 'empty gold text',
  badLines: 'invalid line',
  duplicateIds: 'duplicate sample_id',
  tooLong: 'over-long line',
};

/** A dataset loader's problems as skips (kinds in the loaders' order, at most three examples each). */
export function skipsFromProblems(problems: DatasetProblems): Skips {
  const out: Skips = {};
  for (const kind of PROBLEM_KINDS) {
    if (problems[kind] > 0) out[kind] = { count: problems[kind], examples: (problems.examples[kind] ?? []).slice(0, MAX_SKIP_EXAMPLES) };
  }
  return out;
}

/** Counts (and examples) as skips, dropping zero counts. */
export function skipsFromCounts(counts: Record<string, number>, examples: Record<string, readonly string[]> = {}): Skips {
  const out: Skips = {};
  for (const [kind, count] of Object.entries(counts)) {
    if (count > 0) out[kind] = { count, examples: (examples[kind] ?? []).slice(0, MAX_SKIP_EXAMPLES) };
  }
  return out;
}

export function totalSkips(skips: Skips | undefined): number {
  let n = 0;
  for (const k of Object.values(skips ?? {})) n += k.count;
  return n;
}

/** `3 invalid line (data/x.jsonl:4, :9, :12), 1 duplicate sample_id (data/x.jsonl:7)` */
export function describeKinds(skips: Skips, shorten: (file: string) => string = (f) => f): string {
  return Object.entries(skips)
    .filter(([, k]) => k.count > 0)
    .map(([kind, k]) => {
      const label = (PROBLEM_LABELS as Record<string, string>)[kind] ?? kind;
      return k.examples.length
        ? `${k.count} ${label} (${compactExamples(k.examples, shorten).join(', ')}${k.count > k.examples.length ? ', …' : ''})`
        : `${k.count} ${label}`;
    })
    .join(', ');
}

/** `file:line` for examples that name one (a repeated file shortened to `:line`), paths as `shorten` writes them. */
export function compactExamples(examples: readonly string[], shorten: (file: string) => string = (f) => f): string[] {
  let lastFile: string | null = null;
  return examples.map((e) => {
    const m = /^(.+?):(\d+)(?=$|[:\s])/.exec(e);
    if (!m) return shorten(e);
    const file = shorten(m[1]);
    const out = file === lastFile ? `:${m[2]}` : `${file}:${m[2]}`;
    lastFile = file;
    return out;
  });
}
