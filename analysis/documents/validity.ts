/** Whether a comparison is valid: not when a condition failed on more lines than `infer.max_failed_share`. */
import { pct } from './rates';
import type { Sums } from './sums';

/** Present only when a comparison is not valid, so the documents of a study without failures keep their bytes. */
export type Validity = { valid: false; invalid_reason: string } | null;

/**
 * Failed lines (records with an error) score as the raw OCR text, so a condition with many of them makes its
 * CER — and ΔCER — a statement about the outage, not the method: more than `maxFailedShare` → not valid.
 */
export function comparisonValidity(cmp: Sums, hasBaseline: boolean, maxFailedShare: number): Validity {
  const over: string[] = [];
  const check = (label: string, failed: number) => {
    if (cmp.n > 0 && failed / cmp.n > maxFailedShare) over.push(`${label}: ${failed} of ${cmp.n} lines failed (${pct(failed / cmp.n)})`);
  };
  check('Phase 5 (RAG)', cmp.p5_fail_error);
  if (hasBaseline) check('Phase 2 (zero-shot)', cmp.p2_fail_error);
  if (over.length === 0) return null;
  return {
    valid: false,
    invalid_reason: `${over.join('; ')}, over infer.max_failed_share ${pct(maxFailedShare)}; failed lines score as the raw OCR, so no ΔCER is reported — rerun \`phase5 infer --retry-failed\``,
  };
}
