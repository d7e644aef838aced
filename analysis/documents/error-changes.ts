/** error_changes.json: OCR errors fixed, introduced and unchanged per arm, by edit type and category. */
import { EDIT_TYPES, ERROR_CATEGORIES, type ChangeCounts, type ErrorChangeAccumulator } from '../score/error-changes';
import { ratio, round } from '../format';
import type { SectionContext } from './context';

function changesBlock(acc: ErrorChangeAccumulator, top: number) {
  const withRates = (c: ChangeCounts) => ({
    ...c,
    net_error_change: c.corrected_errors - c.ocr_errors,
    fix_rate: round(ratio(c.fixed, c.ocr_errors)),
  });
  return {
    lines: acc.lines,
    lines_with_ocr_errors: acc.linesWithOcrErrors,
    totals: withRates(acc.totals),
    by_edit_type: Object.fromEntries(EDIT_TYPES.map((t) => [t, withRates(acc.byType[t])])),
    by_category: Object.fromEntries(ERROR_CATEGORIES.map((c) => [c, withRates(acc.byCategory[c])])),
    top_confusions: {
      fixed: acc.topConfusions('fixed', top),
      introduced: acc.topConfusions('introduced', top),
      unchanged: acc.topConfusions('unchanged', top),
    },
  };
}

/**
 * The design document's `alignment_skipped` count (metrics.json, error_changes.json): always 0, since every
 * line is aligned — one too long to align stops the analysis with an error naming it (analysis/score/profile-scores.ts).
 */
export const ALIGNMENT_SKIPPED = 0;

export function errorChangesDocument(
  head: Record<string, unknown>,
  n: number,
  rag: ErrorChangeAccumulator,
  zeroShot: ErrorChangeAccumulator | null,
  ctx: SectionContext,
) {
  return {
    meta: {
      ...head,
      generated_at: ctx.generatedAt,
      num_samples: n,
      alignment:
        'character Levenshtein alignment of OCR→gold and corrected→gold (scoring form); errors anchored on gold positions and compared per line as multisets',
      kinds: 'fixed = OCR error absent after correction; introduced = error only after correction; unchanged = in both',
      confusion_fields: 'ref = gold character, hyp = output character ("" = none)',
      failed_lines: 'scored as identity (corrected = OCR text), so they contribute unchanged errors only',
      alignment_skipped: ALIGNMENT_SKIPPED,
    },
    phase5: changesBlock(rag, ctx.topConfusions),
    phase2: zeroShot ? changesBlock(zeroShot, ctx.topConfusions) : null,
  };
}
