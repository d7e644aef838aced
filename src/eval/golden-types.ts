/** The golden set's records, lines, summary and options, and the source books they are built from. */
import type { OcrSample } from '../datasets';
import type { SourceLine } from '../retrieval/source-lines';
import type { Location } from './locate';

export interface GoldenBook {
  /** Dataset key, e.g. "OCR_GS-IbnQutayba.Adab". */
  key: string;
  /** Folder under the OCR_GS root. */
  folder: string;
  /** Version-URI glob of the book's OpenITI versions (also what the distractor sample excludes). */
  sourcePattern: string;
}

export interface GoldenOptions {
  openitiRoot: string;
  ocrGsRoot: string;
  /** Where the distractor sample is cached. */
  cacheDir: string;
  books?: readonly GoldenBook[];
  /** Which versions of a book are its source: the primary one (as in a study corpus, default) or all. */
  sourceStatus?: 'pri' | 'all';
  /** At most this many OCR lines per book (the first ones, consecutive pages); null = all. */
  linesPerBook?: number | null;
  /** Gold-to-source match quality needed (1 − edits/length; default 0.85). */
  minQuality?: number;
  /** Source units kept around each located line (default 2). */
  window?: number;
  sameBookSample?: number;
  distractors?: number;
  minCharLen?: number;
  maxCharLen?: number;
  seed?: number;
  onProgress?: (done: number, total: number, stage: string) => void;
}

export interface EvalCorpusRecord {
  text: string;
  source_uri: string;
  date: number;
  char_len: number;
  idx: number;
  /** 1-based physical line in the source file (the proposed corpus.jsonl field); null for distractors. */
  line: number | null;
  /** "source" (a golden book) or "distractor". */
  origin: 'source' | 'distractor';
}

export type LineStatus = 'evaluable' | 'no_match' | 'low_quality' | 'relevant_not_in_corpus';

export interface GoldenLine {
  sample_id: string;
  dataset: string;
  ocr_text: string;
  gt_text: string;
  status: LineStatus;
  /** Match quality of the gold line in its source (null without a match). */
  quality: number | null;
  source_uri: string | null;
  /** Source lines the gold line overlaps, with overlap in key characters. */
  units: { line: number; overlap: number; unit_length: number; relevant: boolean; idx: number | null }[];
  /** Corpus idx of the relevant sentences (empty unless evaluable). */
  relevant: number[];
}

export interface GoldenSet {
  lines: GoldenLine[];
  corpus: EvalCorpusRecord[];
  summary: {
    books: { key: string; sources: string[]; lines: number; evaluable: number; by_status: Record<LineStatus, number> }[];
    lines: number;
    evaluable: number;
    by_status: Record<LineStatus, number>;
    corpus: { total: number; source_units: number; distractors: number; duplicates_dropped: number; too_short_or_long: number };
    options: Required<Omit<GoldenOptions, 'onProgress' | 'books' | 'cacheDir'>> & { books: GoldenBook[] };
  };
}

export interface SourceDoc {
  uri: string;
  date: number;
  lines: SourceLine[];
}

export interface BookSources {
  book: GoldenBook;
  docs: SourceDoc[];
}

export type ResolvedGoldenOptions = GoldenSet['summary']['options'];
export type Located = { sample: OcrSample; book: BookSources; loc: Location | null };
export type SourceRecord = Omit<EvalCorpusRecord, 'idx'>;
