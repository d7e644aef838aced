/** `datasets`: the OCR datasets, a folder of paired files or a JSONL file, and how their lines group into pages. */
import { z } from 'zod';

/**
 * Regular expression on sample_id naming a line's page (first capture group, or the whole match): consecutive
 * lines of one page form one cluster of the analysis's resampling; absent = blocks of `analysis.block_lines`.
 */
const pagePattern = z
  .string()
  .refine((p) => {
    try {
      new RegExp(p);
      return true;
    } catch {
      return false;
    }
  }, 'not a valid regular expression')
  .optional();

export const DatasetSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('paired_dir'),
    path: z.string().min(1),
    gt_suffix: z.string().min(1).default('.gt.txt'),
    ocr_suffix: z.string().min(1).default('.png.rec.txt'),
    /** Version-URI glob of this dataset's source book in OpenITI (for the leakage line of the report). */
    source_pattern: z.string().optional(),
    page_pattern: pagePattern,
  }),
  z.strictObject({
    type: z.literal('jsonl'),
    path: z.string().min(1),
    source_pattern: z.string().optional(),
    page_pattern: pagePattern,
  }),
]);
