/**
 * One file's eligible sentences: parsed, length-filtered and deduplicated within the file. Both passes
 * of a build scan files through here, so "the i-th eligible sentence" means the same in each.
 */
import { stripHarakatAndTatweel } from '../text/arabic';
import type { ParseOptions } from './arabic-filter';
import { Digest64Set } from './digest-set';
import { OpenITILineParser } from './line-parser';
import { forEachLineBytes } from './read-lines';

/** Key for duplicate detection: the text without diacritics and tatweel (vocalised copies are duplicates). */
export function dedupKey(text: string): string {
  return stripHarakatAndTatweel(text);
}

export interface FilterOptions extends ParseOptions {
  minCharLen: number;
  maxCharLen: number;
}

export interface FileScan {
  bytes: number;
  contentLines: number;
  notArabic: number;
  tooShort: number;
  tooLong: number;
  duplicateInFile: number;
  eligible: number;
}

/** One eligible sentence as scanEligible reports it; valid only during the callback. */
export interface EligibleLine {
  /** Ordinal among the file's eligible sentences. */
  readonly index: number;
  /** Length in code points. */
  readonly charLen: number;
  /** False when the text holds no harakat or tatweel, i.e. dedupKey(text) === text. */
  readonly hasMarks: boolean;
  /** The cleaned text, decoded on demand: most lines need no string unless they are kept. */
  text(): string;
}

/**
 * Stream one file and call `onEligible` for each sentence that passes the length filter and is not a
 * repeat within the file. Both passes use this, so "the i-th eligible sentence" means the same in each.
 */
export async function scanEligible(file: string, opts: FilterOptions, onEligible?: (line: EligibleLine) => void): Promise<FileScan> {
  // Within-file dedup on hash53(dedupKey(text)), which the parser computes while cleaning the line.
  // Its 53 bits go into a typed-array set as (high 21 bits + 1, low 32 bits): the same equality, no
  // boxed number per line, and the +1 keeps clear of Digest64Set's empty-slot marker (0, 0).
  const seen = new Digest64Set(1 << 14);
  const scan: FileScan = { bytes: 0, contentLines: 0, notArabic: 0, tooShort: 0, tooLong: 0, duplicateInFile: 0, eligible: 0 };
  const p = new OpenITILineParser(file, opts);
  const line = { index: 0, charLen: 0, hasMarks: false, text: () => p.lastText() }; // one object, reused
  scan.bytes = await forEachLineBytes(file, (bytes, start, end) => {
    if (!p.pushBytes(bytes, start, end)) return;
    const charLen = p.lastCharLen;
    if (charLen < opts.minCharLen) {
      scan.tooShort++;
      return;
    }
    if (charLen > opts.maxCharLen) {
      scan.tooLong++;
      return;
    }
    if (!seen.add(p.lastKeyHashHi + 1, p.lastKeyHashLo)) {
      scan.duplicateInFile++;
      return;
    }
    line.index = scan.eligible++;
    if (onEligible) {
      line.charLen = charLen;
      line.hasMarks = p.lastHasMarks;
      onEligible(line);
    }
  });
  p.end();
  scan.contentLines = p.stats.contentLines;
  scan.notArabic = p.stats.notArabic;
  return scan;
}
