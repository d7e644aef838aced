/** What both passes of a build over the files share: options, filters, sentence counts, problems, progress. */
import type { ResolvedOptions } from './build-options';
import type { CorpusBuildSummary } from './build-summary';
import type { FileProblems } from './file-selection';
import type { FilterOptions } from './scan-eligible';

export type ProgressCallback = (done: number, total: number, stage: 'count' | 'select') => void;
export type SentenceCounts = CorpusBuildSummary['sentences'];

/** What both passes over the files share. */
export interface PassContext {
  o: ResolvedOptions;
  filter: FilterOptions;
  sentences: SentenceCounts;
  problems: FileProblems;
  onProgress?: ProgressCallback;
}

export function emptySentenceCounts(): SentenceCounts {
  return {
    contentLines: 0,
    notArabic: 0,
    tooShort: 0,
    tooLong: 0,
    duplicateInFile: 0,
    eligible: 0,
    duplicateAcrossCorpus: 0,
    unfilledAfterDedup: 0,
  };
}
