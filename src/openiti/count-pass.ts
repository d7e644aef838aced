/** Pass 1 of a build: count each file's eligible sentences. */
import { createProgress } from '../util/progress';
import { classifyReadError, type FileEntry } from './file-selection';
import type { PassContext, SentenceCounts } from './pass-context';
import { scanEligible, type FileScan } from './scan-eligible';

export interface CountResult {
  /** The entries that could be read, with `eligible` and `capacity` set. */
  parsedEntries: FileEntry[];
  parsed: number;
  bytesParsed: number;
}

/** Pass 1: count each file's eligible sentences (an unreadable file is skipped and noted). */
export async function countPass(entries: readonly FileEntry[], ctx: PassContext): Promise<CountResult> {
  const { o } = ctx;
  const totalBytes = entries.reduce((a, e) => a + e.bytes, 0);
  const result: CountResult = { parsedEntries: [], parsed: 0, bytesParsed: 0 };
  const progress = createProgress({ label: 'openiti: count', total: totalBytes, mode: o.progressMode });
  let done = 0;
  try {
    for (const e of entries) {
      o.signal?.throwIfAborted();
      try {
        const s = await scanEligible(e.file, ctx.filter);
        result.parsed++;
        result.bytesParsed += s.bytes;
        addFileScan(ctx.sentences, s);
        e.eligible = s.eligible;
        e.capacity = o.maxPerFile === null ? s.eligible : Math.min(s.eligible, o.maxPerFile);
        result.parsedEntries.push(e);
      } catch (err) {
        const { reason, detail } = classifyReadError(err);
        ctx.problems.skip(reason, e.file, detail);
      }
      done += e.bytes;
      progress.update(done);
      ctx.onProgress?.(done, totalBytes, 'count');
    }
  } finally {
    progress.stop();
  }
  return result;
}

function addFileScan(sentences: SentenceCounts, s: FileScan): void {
  sentences.contentLines += s.contentLines;
  sentences.notArabic += s.notArabic;
  sentences.tooShort += s.tooShort;
  sentences.tooLong += s.tooLong;
  sentences.duplicateInFile += s.duplicateInFile;
  sentences.eligible += s.eligible;
}
