/**
 * How a run's batch lines are cut into part files: a new part at `infer.batch.max_lines` lines or when the next
 * line would pass `infer.batch.max_bytes` bytes. `--batch-out` writes by it and `phase5 plan --batch` counts by
 * it, so the plan's files are the ones written.
 */
import { UserInputError } from '../shared/types';

export interface BatchLimits {
  maxLines: number;
  maxBytes: number;
}

export interface PartSize {
  lines: number;
  bytes: number;
}

export class BatchParts {
  readonly parts: PartSize[] = [];

  constructor(private readonly limits: BatchLimits) {}

  /** One line of `size` bytes into the parts; true when it opens a new part. */
  add(size: number): boolean {
    if (size > this.limits.maxBytes)
      throw new UserInputError(`a batch request of ${size} bytes is over infer.batch.max_bytes (${this.limits.maxBytes})`);
    const last = this.parts[this.parts.length - 1];
    if (!last || last.lines >= this.limits.maxLines || last.bytes + size > this.limits.maxBytes) {
      this.parts.push({ lines: 1, bytes: size });
      return true;
    }
    last.lines++;
    last.bytes += size;
    return false;
  }
}

/** The file of a run's part: `<arm>.r<replicate>.<part>.jsonl`, the part in four digits. */
export function partFile(arm: string, replicate: number, part: number): string {
  return `${arm}.r${replicate}.${String(part).padStart(4, '0')}.jsonl`;
}
