/**
 * The failed-share validity rule, one for every comparison (docs/statistics.md "Failed lines"): failed lines
 * (records with an error) score as the raw OCR text, so an arm — the default arms of the design document's files too —
 * with more of them than `infer.max_failed_share` of its lines measures the outage, not the method; its figures
 * are reported with this reason instead of a ΔCER.
 */
import { isFailed, type CorrectionRecord } from '../../src/llm/records';

/** The config's default `infer.max_failed_share`. */
export const DEFAULT_MAX_FAILED_SHARE = 0.01;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** One arm of a comparison: its label, lines and the lines whose record has an error. */
export interface FailedCount {
  label: string;
  failed: number;
  lines: number;
}

/** The reason a comparison is not valid, naming every arm over the share; null when none is. */
export function failedShareReason(counts: readonly FailedCount[], maxFailedShare: number): string | null {
  const over = counts
    .filter((c) => c.lines > 0 && c.failed / c.lines > maxFailedShare)
    .map((c) => `${c.label}: ${c.failed} of ${c.lines} lines failed (${pct(c.failed / c.lines)})`);
  if (over.length === 0) return null;
  return `${over.join('; ')}, over infer.max_failed_share ${pct(maxFailedShare)}; failed lines score as the raw OCR, so no ΔCER is reported — rerun \`phase5 infer --retry-failed\``;
}

/** Lines whose record has an error (a line an arm lacked and that was scored as its OCR text is not one). */
export function failedLines(lines: readonly { record: Pick<CorrectionRecord, 'error'>; filled?: boolean }[]): number {
  let n = 0;
  for (const l of lines) if (!l.filled && isFailed(l.record)) n++;
  return n;
}
