/** What `phase5 score` reads (analysis/outside/): reference lines, the systems' outputs on them, counted problems. */

/** One unit of evaluation (a HIPE-OCRepair document, a line of paired text, a corrections.jsonl record). */
export interface ReferenceLine {
  dataset: string;
  sample_id: string;
  gt_text: string;
  ocr_text: string;
}

/** One system's outputs keyed by sample id (the key `referenceKey` makes). */
export interface SystemOutput {
  name: string;
  files: string[];
  /** null: the output was missing, "None" or empty — scored as the OCR text. */
  outputs: Map<string, string | null>;
  /** Records whose output was missing, null, "None" or empty: scored as the OCR text (HIPE-OCRepair's score_one.py). */
  imputed: number;
  /** corrections.jsonl files only: records with an `error` (no correction), scored as the OCR text. */
  failed?: number;
}

/** A reference line's key: dataset and sample id. */
export const referenceKey = (dataset: string, sampleId: string): string => `${dataset}\u0000${sampleId}`;

/** Counted things the reader did, each shown to the user. */
export interface ReadNotes {
  /** Reference documents flagged `ground_truth.exclude_from_icdar_evaluation`: left out. */
  excluded: number;
  /** The keys of the flagged documents: a system's output for one is neither scored nor unmatched. */
  excludedKeys?: Set<string>;
  warnings: string[];
}
