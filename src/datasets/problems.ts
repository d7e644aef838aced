import { PROBLEM_KINDS, type DatasetProblems, type ProblemKind } from './types';

/** How many example names are kept per problem kind (the counts are always complete). */
export const MAX_PROBLEM_EXAMPLES = 5;

export function emptyProblems(): DatasetProblems {
  const p = { examples: {} } as DatasetProblems;
  for (const k of PROBLEM_KINDS) p[k] = 0;
  return p;
}

export function addProblem(problems: DatasetProblems, kind: ProblemKind, example: string): void {
  problems[kind]++;
  const list = (problems.examples[kind] ??= []);
  if (list.length < MAX_PROBLEM_EXAMPLES) list.push(example);
}

export function totalProblems(problems: DatasetProblems): number {
  let n = 0;
  for (const k of PROBLEM_KINDS) n += problems[k];
  return n;
}

/** Only the non-zero counts, for compact log lines and reports. */
export function nonZeroProblems(problems: DatasetProblems): Partial<Record<ProblemKind, number>> {
  const out: Partial<Record<ProblemKind, number>> = {};
  for (const k of PROBLEM_KINDS) if (problems[k] > 0) out[k] = problems[k];
  return out;
}

/** Default `maxLineChars`: far above any real OCR line, far below what makes tokenizers and prompts misbehave. */
export const DEFAULT_MAX_LINE_CHARS = 20_000;

/** The first line of `text` longer than `max` characters (1-based line number and its length), or null. */
export function overlongLine(text: string, max: number): { line: number; chars: number } | null {
  if (text.length <= max) return null; // the common case: nothing to scan
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end - start > max) return { line, chars: end - start };
    start = end + 1;
  }
  return null;
}

/** The problem example for an over-long line: `file:line (N chars > max_line_chars M)`. */
export function overlongExample(where: string, found: { line: number; chars: number }, max: number): string {
  return `${where}:${found.line} (${found.chars} chars > max_line_chars ${max})`;
}
