/** Whether a comparison is valid: not when an arm failed on more lines than `infer.max_failed_share`. */
import { failedShareReason } from '../score/failed-share';
import type { Sums } from './sums';

/** Present only when a comparison is not valid, so the documents of a study without failures keep their bytes. */
export type Validity = { valid: false; invalid_reason: string } | null;

/**
 * Failed lines (records with an error) score as the raw OCR text, so an arm with many of them makes its
 * CER — and ΔCER — a statement about the outage, not the method: more than `maxFailedShare` → not valid.
 */
export function comparisonValidity(cmp: Sums, hasBaseline: boolean, maxFailedShare: number): Validity {
  const reason = failedShareReason(
    [
      { label: 'Phase 5 (RAG)', failed: cmp.rag_fail_error, lines: cmp.n },
      ...(hasBaseline ? [{ label: 'Phase 2 (zero-shot)', failed: cmp.base_fail_error, lines: cmp.n }] : []),
    ],
    maxFailedShare,
  );
  return reason === null ? null : { valid: false, invalid_reason: reason };
}
