/** What `--batch-in` left out, by kind, with the first examples: one line for the user, Skips for the result. */
import { MAX_SKIP_EXAMPLES, skipsFromCounts, type Skips } from '../shared/skips';

export const BATCH_PROBLEMS = {
  unreadable: 'unreadable line (truncated file?)',
  unknown: 'custom_id not in the batch manifest',
  otherStudy: 'line of another study',
  duplicate: 'duplicate custom_id',
  error: 'error line',
  wrongArm: 'wrong arm (not in this run, or its request changed since --batch-out)',
  missing: 'missing from the outputs',
} as const;

export type BatchProblem = keyof typeof BATCH_PROBLEMS;

export class BatchTally {
  private readonly counts = new Map<BatchProblem, number>();
  private readonly examples = new Map<BatchProblem, string[]>();

  add(kind: BatchProblem, example: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    const list = this.examples.get(kind) ?? [];
    if (list.length < MAX_SKIP_EXAMPLES) list.push(example);
    this.examples.set(kind, list);
  }

  count(kind: BatchProblem): number {
    return this.counts.get(kind) ?? 0;
  }

  skips(): Skips {
    const counts: Record<string, number> = {};
    const examples: Record<string, string[]> = {};
    for (const [kind, n] of this.counts) {
      counts[BATCH_PROBLEMS[kind]] = n;
      examples[BATCH_PROBLEMS[kind]] = this.examples.get(kind) ?? [];
    }
    return skipsFromCounts(counts, examples);
  }

  /** `batch-in: 3 imported; left out: 1 duplicate custom_id (a.jsonl:4), …` (or nothing left out). */
  line(imported: number): string {
    const parts = [...this.counts].map(([k, n]) => `${n} ${BATCH_PROBLEMS[k]} (${(this.examples.get(k) ?? []).join(', ')})`);
    return `batch-in: ${imported} line(s) imported; ${parts.length ? `left out: ${parts.join('; ')}` : 'nothing left out'}`;
  }
}
