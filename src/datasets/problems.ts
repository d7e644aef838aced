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
