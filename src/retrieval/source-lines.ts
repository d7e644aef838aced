/**
 * Content lines of an OpenITI file with their physical line numbers — what a corpus unit's `line` refers
 * to (1-based line in the source file, header included), and where context-window neighbours and the
 * evaluation's gold sentences come from. The cleaning is the corpus parser's, so a corpus sentence's
 * text equals the `text` of its source line exactly.
 */
import type { ParseOptions } from '../openiti/arabic-filter';
import { OpenITILineParser } from '../openiti/line-parser';
import { forEachLine } from '../openiti/read-lines';

export interface SourceLine {
  /** 1-based physical line in the file. */
  line: number;
  /** The cleaned Arabic text (as in corpus.jsonl). */
  text: string;
}

/** Every content line that passes the parser's Arabic test, in file order (no length filter). */
export async function readSourceLines(file: string, opts: ParseOptions = {}): Promise<SourceLine[]> {
  const parser = new OpenITILineParser(file, opts);
  const out: SourceLine[] = [];
  await forEachLine(file, (raw) => {
    const text = parser.push(raw);
    if (text !== null) out.push({ line: parser.stats.lines, text });
  });
  parser.end();
  return out;
}

/** Position of the entry with this physical line number (binary search), or -1. */
export function findLine(lines: readonly SourceLine[], line: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = lines[mid].line;
    if (v === line) return mid;
    if (v < line) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
