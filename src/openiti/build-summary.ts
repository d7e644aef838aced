/** What a corpus build reports: the JSON-serialisable summary, per era and per skip reason. */
import type { StatusFilter } from './metadata';
import type { EraSpec } from './sampling';

export type FileSkipReason = 'missing' | 'author_not_in_checkout' | 'path_outside_root' | 'unreadable' | 'not_utf8' | 'no_header';
export const FILE_SKIP_REASONS: readonly FileSkipReason[] = [
  'missing',
  'author_not_in_checkout',
  'path_outside_root',
  'unreadable',
  'not_utf8',
  'no_header',
];

export interface EraSummary {
  name: string;
  from: number;
  to: number;
  fraction: number;
  /** Files of the era that were parsed / that have eligible sentences. */
  files: number;
  authors: number;
  /** Eligible sentences in the era (after filters, within-file dedup and maxPerFile). */
  capacity: number;
  /** fraction × maxSentences. */
  target: number;
  /** Part of the target the era could not fill itself. */
  shortfall: number;
  /** Sentences taken over from other eras' shortfalls. */
  received: number;
  /** Planned: min(target, capacity) + received. */
  allocated: number;
  written: number;
}

export interface CorpusBuildSummary {
  outPath: string;
  corpusSha256: string;
  totalWritten: number;
  maxSentences: number;
  /** maxSentences − totalWritten (the corpus had fewer eligible sentences, or dedup losses). */
  shortfall: number;
  options: {
    openitiRoot: string;
    metadataPath: string;
    minCharLen: number;
    maxCharLen: number;
    statusFilter: StatusFilter;
    seed: number;
    maxPerFile: number | null;
    exclude: string[];
    dedupAcrossCorpus: boolean;
    minArabicLetters: number;
    maxForeignLetterRatio: number;
    eras: EraSpec[];
  };
  metadata: { rows: number; badRows: number; duplicateRows: number; examples: string[] };
  files: {
    /** Valid metadata rows. */
    considered: number;
    statusFiltered: number;
    excluded: number;
    outsideEras: number;
    skipped: Record<FileSkipReason, number>;
    parsed: number;
    withSentences: number;
    /** Files that contributed at least one sentence. */
    contributing: number;
    /** Up to 10 `path: detail` lines per reason (also excluded / outside_eras). */
    examples: Record<string, string[]>;
  };
  sentences: {
    /** Content lines after marker stripping (pass 1). */
    contentLines: number;
    notArabic: number;
    tooShort: number;
    tooLong: number;
    duplicateInFile: number;
    /** Sentences that passed every filter (pass 1). */
    eligible: number;
    /** Candidates skipped in pass 2 because the same text was already written from another file. */
    duplicateAcrossCorpus: number;
    /** Dedup losses that no later file of the era could make up. */
    unfilledAfterDedup: number;
  };
  eras: EraSummary[];
  bytesParsed: number;
  durationMs: { count: number; select: number; total: number };
}
