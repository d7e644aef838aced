/**
 * OpenITI text parsing (docs/openiti.md#parsing-rules, plus the variants seen in the real files, see
 * ../shared/data/README.md): header skipping, content-line extraction, marker stripping and the
 * "Arabic text" filter. Each extracted physical line is one corpus unit (docs/openiti.md#parsing-rules: no sentence
 * splitting), so `~~` continuation lines are units of their own, as the parsing rules say.
 *
 * Speed matters (the full OpenITI is 21 GB): one table-driven pass over each line counts letters and
 * notes which markers may occur; a regex runs only when that pass (and a cheap check) says it can match.
 * The same pass yields what a build needs next (length in code points, hash of the dedup key). A build
 * reads UTF-8 bytes: most lines, markers and all, are cleaned on their bytes (cleanLineBytes) and
 * decoded only if a caller wants their text; the rest are decoded and go through cleanLine.
 */
import { DEFAULT_PARSE_OPTIONS, passesArabic, type ParseOptions } from './arabic-filter';
import { cleanLine } from './clean-line';
import { cleanLineBytes, FAST, SKIP } from './clean-line-bytes';
import { lineFacts } from './line-facts';
import { NoHeaderError } from './parse-errors';
import { forEachLineBytes } from './read-lines';
import { decodeUtf8 } from './utf8-decode';

export const OPENITI_MAGIC = '######OpenITI#';
export const HEADER_END = '#META#Header#End#';

export interface ParseStats {
  /** Physical lines seen (header included). */
  lines: number;
  /** Body lines that were content after cleaning (before the Arabic filter). */
  contentLines: number;
  /** Content lines dropped by the Arabic filter (too few Arabic letters, or mostly foreign letters). */
  notArabic: number;
}

/**
 * Feed a file line by line; `push` returns the clean Arabic line or null. Tracks the header:
 * the first line must carry the `######OpenITI#` magic (unless `requireHeader` is false) and
 * everything up to `#META#Header#End#` is skipped.
 */
export class OpenITILineParser {
  private state: 'magic' | 'header' | 'body';
  readonly stats: ParseStats = { lines: 0, contentLines: 0, notArabic: 0 };
  /**
   * Facts about the last returned line, found during cleaning (saves callers further scans):
   * whether it may contain harakat or tatweel (if not, its dedup key is the text itself), its length in
   * code points, and hash53(dedupKey(text)) split into its low 32 and high 21 bits.
   */
  lastHasMarks = false;
  lastCharLen = 0;
  lastKeyHashLo = 0;
  lastKeyHashHi = 0;
  // The line pushBytes accepted last: decoded on demand by lastText().
  private pendingBytes: Uint8Array | null = null;
  private pendingStart = 0;
  private pendingEnd = 0;
  private pendingText: string | null = null;
  private readonly minLetters: number;
  private readonly maxForeign: number;

  constructor(
    private readonly file = '<text>',
    private readonly opts: ParseOptions & { requireHeader?: boolean } = {},
  ) {
    this.state = opts.requireHeader === false ? 'body' : 'magic';
    this.minLetters = opts.minArabicLetters ?? DEFAULT_PARSE_OPTIONS.minArabicLetters;
    this.maxForeign = opts.maxForeignLetterRatio ?? DEFAULT_PARSE_OPTIONS.maxForeignLetterRatio;
  }

  push(line: string): string | null {
    return this.pushRange(line, 0, line.length);
  }

  /**
   * `push(text.slice(start, end))` without the copy, for a line inside a decoded chunk; text[end] must
   * be a line break (\r or \n) or the end of text, as forEachLineRange guarantees.
   */
  pushRange(text: string, start: number, end: number): string | null {
    this.stats.lines++;
    if (this.state === 'body') {
      const cleaned = cleanLine(text, start, end);
      return cleaned !== null && this.accept() ? cleaned : null;
    }
    const line = text.slice(start, end); // header lines: few, no need to avoid the copy
    if (this.state === 'magic') {
      const t = line.replace(/^\ufeff/, '').trim();
      if (!t.startsWith(OPENITI_MAGIC)) {
        throw new NoHeaderError(
          this.file,
          `no OpenITI header (first line is ${JSON.stringify(t.slice(0, 40))}, expected "${OPENITI_MAGIC}")`,
        );
      }
      this.state = 'header';
      return null;
    }
    // header: skip until its end marker
    if (line.includes(HEADER_END)) this.state = 'body';
    return null;
  }

  /**
   * `push` for a line given as UTF-8 bytes, bytes[start, end), with bytes[end] \r, \n or past the end
   * (as forEachLineBytes hands them over). Returns whether it is a clean Arabic line; its text is then
   * lastText(). Most lines are judged on their bytes, and decoded only if lastText() is called.
   */
  pushBytes(bytes: Buffer, start: number, end: number): boolean {
    if (this.state === 'body') {
      const verdict = cleanLineBytes(bytes, start, end);
      if (verdict === SKIP) {
        this.stats.lines++;
        return false;
      }
      if (verdict === FAST) {
        this.stats.lines++;
        if (!this.accept()) return false;
        this.pendingBytes = lineFacts.bytes; // the line's buffer, or the cleaner's scratch for a cleaned line
        this.pendingStart = lineFacts.byteStart;
        this.pendingEnd = lineFacts.byteEnd;
        this.pendingText = null;
        return true;
      }
      // GENERAL: decoded and cleaned as a string, knowing that it holds something to remove or collapse
      this.stats.lines++;
      const text = decodeUtf8(bytes, start, end);
      const cleaned = cleanLine(text, 0, text.length, true);
      this.pendingText = cleaned !== null && this.accept() ? cleaned : null;
      return this.pendingText !== null;
    }
    this.pendingText = this.push(decodeUtf8(bytes, start, end));
    return this.pendingText !== null;
  }

  /**
   * The text of the line the last pushBytes accepted. Call it before the next push on any parser: a
   * cleaned line's bytes lie in a scratch buffer that the next cleaned line overwrites.
   */
  lastText(): string {
    this.pendingText ??= decodeUtf8(this.pendingBytes!, this.pendingStart, this.pendingEnd);
    return this.pendingText;
  }

  /** Counts a cleaned line as content and applies the Arabic test; keeps the facts of a line that passes. */
  private accept(): boolean {
    this.stats.contentLines++;
    if (!passesArabic(lineFacts.arabic, lineFacts.foreign, this.minLetters, this.maxForeign)) {
      this.stats.notArabic++;
      return false;
    }
    this.lastHasMarks = lineFacts.hasMarks;
    this.lastCharLen = lineFacts.charLen;
    this.lastKeyHashLo = lineFacts.keyHash[0];
    this.lastKeyHashHi = lineFacts.keyHash[1];
    return true;
  }

  /** Call at end of input: a file whose header never ends has no body. */
  end(): void {
    if (this.state === 'magic') throw new NoHeaderError(this.file, 'empty file (no OpenITI header)');
    if (this.state === 'header') throw new NoHeaderError(this.file, `OpenITI header never ends (no "${HEADER_END}" line)`);
  }
}

/** Parse a whole OpenITI text (plain or .mARkdown) into clean Arabic lines, in file order. */
export function parseOpenITIText(text: string, opts: ParseOptions & { requireHeader?: boolean; file?: string } = {}): string[] {
  const p = new OpenITILineParser(opts.file, opts);
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const raw = nl === -1 ? text.slice(start) : text.slice(start, nl);
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (nl !== -1 || line.length > 0) {
      const r = p.push(line);
      if (r !== null) out.push(r);
    }
    if (nl === -1) break;
    start = nl + 1;
  }
  p.end();
  return out;
}

/**
 * Stream one OpenITI file through the parser; `onText` gets each clean Arabic line in file order, and
 * the parser, whose `last*` fields describe that line (code-point length, dedup-key hash, marks).
 * Throws NotUtf8Error / NoHeaderError / fs errors.
 */
export async function parseOpenITIFile(
  file: string,
  onText: (text: string, parser: OpenITILineParser) => void,
  opts: ParseOptions & { requireHeader?: boolean } = {},
): Promise<ParseStats & { bytes: number }> {
  const p = new OpenITILineParser(file, opts);
  const bytes = await forEachLineBytes(file, (chunk, start, end) => {
    if (p.pushBytes(chunk, start, end)) onText(p.lastText(), p);
  });
  p.end();
  return { ...p.stats, bytes };
}
