/** One OCR line/page with its gold transcription. Texts are trimmed. */
export interface OcrSample {
  /** Unique within a run: `<dataset key>/<stem>` for paired dirs, the file's id or `<key>/<line>` for JSONL. */
  sample_id: string;
  /** The dataset key from the config, e.g. `OCR_GS-Jahiz.Hayawan`. */
  dataset: string;
  ocr_text: string;
  gt_text: string;
}

/** A directory of paired files: `<stem><gtSuffix>` (gold) beside `<stem><ocrSuffix>` (OCR output). */
export interface PairedDirSpec {
  key: string;
  type: 'paired_dir';
  path: string;
  /** Default `.gt.txt`. */
  gtSuffix?: string;
  /** Default `.png.rec.txt` (kraken output, as in OCR_GS). */
  ocrSuffix?: string;
}

/** A JSONL file whose lines carry `ocr_text`, `gt_text` and optionally `sample_id`. */
export interface JsonlDatasetSpec {
  key: string;
  type: 'jsonl';
  path: string;
  /** What to do with a bad line: skip it and count it (default, logged), or fail the whole load. */
  onBadLine?: 'skip' | 'fail';
}

export type DatasetSpec = PairedDirSpec | JsonlDatasetSpec;

export interface LoadDatasetOptions {
  /** Keep only the first `limit` samples (in the loader's deterministic order). */
  limit?: number;
  /** A sample with an OCR or gold line longer than this (UTF-16 units) is skipped and counted (`tooLong`). */
  maxLineChars?: number;
  /** Log the counted problems as a warning (default true); false logs them at debug level (a re-read). */
  logProblems?: boolean;
}

/** Kinds of input problems a loader counts instead of silently dropping. */
export type ProblemKind =
  /** Paired dir: a gold file without its OCR file. */
  | 'missingOcr'
  /** Paired dir: an OCR file without its gold file. */
  | 'missingGt'
  /** A file that could not be read or is not valid UTF-8. */
  | 'unreadable'
  /** A gold text that is empty after trimming (CER would be undefined). */
  | 'emptyGt'
  /** JSONL: a line that is not JSON, not an object, or lacks a string `ocr_text`/`gt_text`. */
  | 'badLines'
  /** A sample_id seen before in the same dataset (the later one is skipped). */
  | 'duplicateIds'
  /** An OCR or gold line longer than `maxLineChars` (e.g. a whole page run together); named as file:line. */
  | 'tooLong';

export const PROBLEM_KINDS: readonly ProblemKind[] = [
  'missingOcr',
  'missingGt',
  'unreadable',
  'emptyGt',
  'badLines',
  'duplicateIds',
  'tooLong',
];

/** Counts per problem kind, plus up to a few example names (file names or `file:line: reason`) for each. */
export type DatasetProblems = Record<ProblemKind, number> & {
  examples: Partial<Record<ProblemKind, string[]>>;
};

export interface LoadedDataset {
  key: string;
  samples: OcrSample[];
  problems: DatasetProblems;
  /** Samples available before `limit` was applied (for paired dirs: complete pairs found). */
  available: number;
}
