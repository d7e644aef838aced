/**
 * Build `corpus.jsonl` from an OpenITI checkout (docs/corpus.md, docs/openiti.md): metadata → status/exclude/era filters →
 * two streaming passes over the text files → date-stratified, author-balanced sample → JSONL written
 * to a temp file and renamed into place.
 *
 * Memory stays flat whatever the corpus size: pass 1 keeps one count per file (plus a set of 53-bit
 * hashes for the file being read, for within-file dedup); pass 2 keeps only the sentences chosen from
 * the current file and, with cross-corpus dedup, one digest per written sentence.
 */
import { hash } from 'node:crypto';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { JsonlAppender, JsonlParseError, readJsonl, writeJsonlAtomic } from '../io/jsonl';
import { stripHarakatAndTatweel } from '../text/arabic';
import { sha256File } from '../util/hash';
import { childLogger, logFormat, type Logger } from '../util/log';
import { createProgress, type Progress, type ProgressOptions } from '../util/progress';
import { DEFAULT_METADATA_RELPATH, makeExcluder, readMetadata, resolveTextPath, type MetadataProblem, type MetadataResult, type MetadataRow, type StatusFilter } from './metadata';
import { codePointLength, forEachLineBytes, NoHeaderError, NotUtf8Error, OpenITILineParser, type ParseOptions } from './parse';
import { allocateEras, DEFAULT_ERAS, eraIndex, linePriority, seededKey, TopK, validateEras, waterFill, type Candidate, type EraAllocation, type EraSpec } from './sampling';

/** One line of corpus.jsonl (docs/corpus.md#corpusjsonl); the key order is part of the format. */
export interface CorpusSentence {
  text: string;
  source_uri: string;
  date: number;
  char_len: number;
  idx: number;
}

export interface CorpusBuildOptions {
  /** OpenITI checkout: holds `data/` and `metadata/`. */
  openitiRoot: string;
  /** Default `<openitiRoot>/metadata/OpenITI_metadata_2023-1-8.csv`. */
  metadataPath?: string;
  /** Where corpus.jsonl goes (written as `<outPath>.tmp-<pid>` and renamed when complete). */
  outPath: string;
  /** Default 200000 (docs/corpus.md#size-targets). */
  maxSentences?: number;
  /** Default 30 (code points). */
  minCharLen?: number;
  /** Default 300 (code points). */
  maxCharLen?: number;
  /** Default "pri" (docs/openiti.md#metadata). */
  statusFilter?: StatusFilter;
  /** Default 42. */
  seed?: number;
  /** Default: the four eras of docs/corpus.md#eras (10/30/30/30). */
  eras?: readonly EraSpec[];
  /** Optional hard cap on sentences from any one file, on top of the author-balanced allocation. */
  maxPerFile?: number | null;
  /** Glob patterns on the version URI to hold out, e.g. `0276IbnQutayba*` (OCR source books). */
  exclude?: readonly string[];
  /** Drop a sentence already written from another file (SHA-256 of its dedup key). Default true. */
  dedupAcrossCorpus?: boolean;
  /** Parser knobs (defaults: 10 Arabic letters, ≤ 20 % foreign letters). */
  minArabicLetters?: number;
  maxForeignLetterRatio?: number;
  /** Progress display (default: bar in a TTY, log lines otherwise). */
  progressMode?: ProgressOptions['mode'];
  /** Cancels between files. */
  signal?: AbortSignal;
}

export type FileSkipReason = 'missing' | 'author_not_in_checkout' | 'path_outside_root' | 'unreadable' | 'not_utf8' | 'no_header';
export const FILE_SKIP_REASONS: readonly FileSkipReason[] = ['missing', 'author_not_in_checkout', 'path_outside_root', 'unreadable', 'not_utf8', 'no_header'];

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

export class CorpusBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorpusBuildError';
  }
}

const EXAMPLES_PER_REASON = 10;
const LOGGED_PER_REASON = 20;

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

/**
 * Set of 64-bit digest prefixes in typed arrays (open addressing): no per-entry objects for the GC to
 * walk, no 2^24-entry limit of a JS Set, 16 bytes per slot. 64 bits of SHA-256 make a false "duplicate"
 * vanishingly rare (≈ n² / 2^65: 6·10⁻⁸ for 1.5 M sentences).
 */
export class Digest64Set {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private count = 0;

  /** `slots`: initial table size, a power of two (it doubles as needed). */
  constructor(slots = 1 << 16) {
    if (!(slots >= 2 && (slots & (slots - 1)) === 0)) throw new RangeError(`Digest64Set: slots must be a power of two ≥ 2 (got ${slots})`);
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
  }

  get size(): number {
    return this.count;
  }

  /** Adds the 64-bit key (h, l); returns false when it was already present. */
  add(h: number, l: number): boolean {
    if (h === 0 && l === 0) l = 1; // (0, 0) marks an empty slot
    if ((this.count + 1) * 2 > this.hi.length) this.grow();
    return this.insert(h >>> 0, l >>> 0);
  }

  has(h: number, l: number): boolean {
    if (h === 0 && l === 0) l = 1;
    h >>>= 0;
    l >>>= 0;
    const mask = this.hi.length - 1;
    for (let i = (l ^ h) & mask; ; i = (i + 1) & mask) {
      if (this.hi[i] === 0 && this.lo[i] === 0) return false;
      if (this.hi[i] === h && this.lo[i] === l) return true;
    }
  }

  private insert(h: number, l: number): boolean {
    const mask = this.hi.length - 1;
    for (let i = (l ^ h) & mask; ; i = (i + 1) & mask) {
      if (this.hi[i] === 0 && this.lo[i] === 0) {
        this.hi[i] = h;
        this.lo[i] = l;
        this.count++;
        return true;
      }
      if (this.hi[i] === h && this.lo[i] === l) return false;
    }
  }

  private grow(): void {
    const oldHi = this.hi;
    const oldLo = this.lo;
    this.hi = new Uint32Array(oldHi.length * 2);
    this.lo = new Uint32Array(oldLo.length * 2);
    this.count = 0;
    for (let i = 0; i < oldHi.length; i++) if (oldHi[i] !== 0 || oldLo[i] !== 0) this.insert(oldHi[i], oldLo[i]);
  }
}

interface FileEntry {
  uri: string;
  authorUri: string;
  date: number;
  era: number;
  file: string;
  bytes: number;
  eligible: number;
  capacity: number;
  alloc: number;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function classifyReadError(err: unknown): { reason: FileSkipReason; detail: string } {
  if (err instanceof NotUtf8Error) return { reason: 'not_utf8', detail: err.detail };
  if (err instanceof NoHeaderError) return { reason: 'no_header', detail: err.detail };
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string') return { reason: 'unreadable', detail: `${e.code}: ${e.message}` };
  throw err; // a bug, not a data problem
}

type ProgressCallback = (done: number, total: number, stage: 'count' | 'select') => void;
type SentenceCounts = CorpusBuildSummary['sentences'];

/** What both passes over the files share. */
interface PassContext {
  o: ResolvedOptions;
  filter: FilterOptions;
  sentences: SentenceCounts;
  problems: FileProblems;
  onProgress?: ProgressCallback;
}

/**
 * Build the corpus and return a small, JSON-serialisable summary. `onProgress(done, total, stage)`
 * reports bytes read in each pass (stage "count", then "select"), for heartbeats.
 */
export async function buildCorpus(options: CorpusBuildOptions, onProgress?: ProgressCallback): Promise<CorpusBuildSummary> {
  const t0 = Date.now();
  const log = childLogger('openiti');
  const o = resolveOptions(options);
  const meta = await readMetadata(o.metadataPath);
  const metadataExamples = reportMetadataProblems(meta.problems, log);
  const problems = new FileProblems(log);
  const selection = selectFiles(meta.rows, o, problems);
  const ctx: PassContext = { o, filter: filterOptions(o), sentences: emptySentenceCounts(), problems, onProgress };
  const counted = await countPass(selection.entries, ctx);
  const countMs = Date.now() - t0;

  const eraCaps = eraCapacities(o.eras, counted.parsedEntries);
  if (eraCaps.reduce((a, b) => a + b, 0) === 0) throw noSentencesError(meta.rows.length, counted.parsed, selection, ctx);
  const eraAlloc = allocateEras(o.maxSentences, o.eras.map((e) => e.fraction), eraCaps);
  warnEraShortfall(log, o.eras, eraAlloc, eraCaps);
  const plans = planEras(o, counted.parsedEntries, eraAlloc.allocated);

  const t1 = Date.now();
  const written = await writeCorpus(plans, ctx);
  const corpusSha256 = await sha256File(o.outPath);
  const durationMs = { count: countMs, select: Date.now() - t1, total: Date.now() - t0 };
  const summary = assembleSummary({ o, meta, metadataExamples, selection, counted, ctx, plans, eraCaps, eraAlloc, written, corpusSha256, durationMs });
  log.info(
    { out: o.outPath, written: written.written, sha256: corpusSha256, eras: summary.eras.map((e) => ({ era: e.name, target: e.target, written: e.written })), skipped: problems.skipped },
    `openiti: wrote ${written.written} sentences`,
  );
  return summary;
}

/** Logs the first metadata problems one by one (the rest only as a count); returns the summary's examples. */
function reportMetadataProblems(problems: readonly MetadataProblem[], log: Logger): string[] {
  const examples: string[] = [];
  problems.forEach((p, i) => {
    if (examples.length < EXAMPLES_PER_REASON) examples.push(`${p.where}: ${p.detail}`);
    // Human logs aggregate every row into one line with a count; structured logs keep the first ones.
    const summary = `metadata rows skipped: ${p.reason.replace(/_/g, ' ')}`;
    if (i < LOGGED_PER_REASON || logFormat() === 'human') log.warn({ reason: p.reason, where: p.where, detail: p.detail, summary }, 'openiti: metadata row skipped');
    else if (i === LOGGED_PER_REASON) log.warn({ problems: problems.length }, 'openiti: further metadata problems are counted in the summary, not logged one by one');
  });
  return examples;
}

/**
 * Files left out, by reason: counted, a few kept as examples for the summary, the first ones logged
 * (a broken checkout can have thousands; the log must stay readable).
 */
/** How a human log line names a reason (the metadata row lists a text whose author folder is absent). */
const SKIP_WORDS: Record<string, string> = { author_not_in_checkout: 'metadata rows skipped: author not in this checkout' };

class FileProblems {
  readonly skipped = Object.fromEntries(FILE_SKIP_REASONS.map((r) => [r, 0])) as Record<FileSkipReason, number>;
  readonly examples: Record<string, string[]> = {};
  private readonly logged: Record<string, number> = {};

  constructor(private readonly log: Logger) {}

  /** Records one file left out (skip reasons, and also "excluded" / "outside_eras", which are no skips). */
  note(reason: string, where: string, detail: string, level: 'warn' | 'info' = 'warn'): void {
    const list = (this.examples[reason] ??= []);
    if (list.length < EXAMPLES_PER_REASON) list.push(`${where} — ${detail}`);
    this.logged[reason] = (this.logged[reason] ?? 0) + 1;
    // Human logs aggregate them all into one line with a count; structured logs keep the first ones.
    const summary = SKIP_WORDS[reason] ?? `${level === 'warn' ? 'files skipped' : 'files left out'}: ${reason.replace(/_/g, ' ')}`;
    if (this.logged[reason] <= LOGGED_PER_REASON || logFormat() === 'human') this.log[level]({ reason, path: where, detail, summary }, `openiti: ${reason}`);
    else if (this.logged[reason] === LOGGED_PER_REASON + 1) this.log[level]({ reason }, `openiti: further "${reason}" files are counted in the summary, not logged one by one`);
  }

  skip(reason: FileSkipReason, where: string, detail: string): void {
    this.skipped[reason]++;
    this.note(reason, where, detail);
  }
}

interface FileSelection {
  /** In output order: era, then source URI. */
  entries: FileEntry[];
  statusFiltered: number;
  excluded: number;
  outsideEras: number;
}

/** Candidate files from the metadata: status filter, exclude patterns, eras, then a readable path. */
function selectFiles(rows: readonly MetadataRow[], o: ResolvedOptions, problems: FileProblems): FileSelection {
  const excluder = makeExcluder(o.exclude);
  const metadataDir = path.dirname(o.metadataPath);
  const sel: FileSelection = { entries: [], statusFiltered: 0, excluded: 0, outsideEras: 0 };
  for (const row of rows) {
    if (o.statusFilter !== 'all' && row.status !== o.statusFilter) {
      sel.statusFiltered++;
      continue;
    }
    const pattern = excluder(row.versionUri);
    if (pattern !== null) {
      sel.excluded++;
      problems.note('excluded', row.versionUri, `matches exclude pattern ${pattern}`, 'info');
      continue;
    }
    const era = eraIndex(row.date, o.eras);
    if (era === -1) {
      sel.outsideEras++;
      problems.note('outside_eras', row.versionUri, `date ${row.date} is in no configured era`, 'info');
      continue;
    }
    const r = resolveTextPath(o.root, metadataDir, row.localPath);
    if (!r.ok) {
      problems.skip(r.reason, row.localPath, `${row.versionUri} — ${r.detail}`);
      continue;
    }
    sel.entries.push({ uri: row.versionUri, authorUri: row.authorUri, date: row.date, era, file: r.file, bytes: r.bytes, eligible: 0, capacity: 0, alloc: 0 });
  }
  // Deterministic order = output order: era, then source URI.
  sel.entries.sort((a, b) => a.era - b.era || cmp(a.uri, b.uri));
  return sel;
}

function filterOptions(o: ResolvedOptions): FilterOptions {
  return { minCharLen: o.minCharLen, maxCharLen: o.maxCharLen, minArabicLetters: o.minArabicLetters, maxForeignLetterRatio: o.maxForeignLetterRatio };
}

function emptySentenceCounts(): SentenceCounts {
  return { contentLines: 0, notArabic: 0, tooShort: 0, tooLong: 0, duplicateInFile: 0, eligible: 0, duplicateAcrossCorpus: 0, unfilledAfterDedup: 0 };
}

interface CountResult {
  /** The entries that could be read, with `eligible` and `capacity` set. */
  parsedEntries: FileEntry[];
  parsed: number;
  bytesParsed: number;
}

/** Pass 1: count each file's eligible sentences (an unreadable file is skipped and noted). */
async function countPass(entries: readonly FileEntry[], ctx: PassContext): Promise<CountResult> {
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

/** Eligible sentences per era (after maxPerFile). */
function eraCapacities(eras: readonly EraSpec[], parsedEntries: readonly FileEntry[]): number[] {
  return eras.map((_, i) => parsedEntries.filter((e) => e.era === i).reduce((a, e) => a + e.capacity, 0));
}

/** The error for a build where nothing passed: every count that could explain why. */
function noSentencesError(metadataRows: number, parsed: number, sel: FileSelection, ctx: PassContext): CorpusBuildError {
  const { o, sentences } = ctx;
  const skipped = ctx.problems.skipped;
  return new CorpusBuildError(
    `no sentences left after filters: ${metadataRows} metadata rows, ${parsed} files parsed ` +
      `(status filter "${o.statusFilter}": ${sel.statusFiltered} rows filtered; excluded ${sel.excluded}; outside eras ${sel.outsideEras}; ` +
      `skipped ${FILE_SKIP_REASONS.map((r) => `${r} ${skipped[r]}`).join(', ')}); ` +
      `lines: ${sentences.contentLines} content, ${sentences.notArabic} not Arabic, ${sentences.tooShort} shorter than ${o.minCharLen}, ${sentences.tooLong} longer than ${o.maxCharLen}. ` +
      `Check openitiRoot, statusFilter, eras, exclude and minCharLen/maxCharLen.`,
  );
}

function warnEraShortfall(log: Logger, eras: readonly EraSpec[], eraAlloc: EraAllocation, eraCaps: readonly number[]): void {
  if (!eraAlloc.shortfall.some((s) => s > 0)) return;
  log.warn(
    { eras: eras.map((e, i) => ({ era: e.name, target: eraAlloc.targets[i], capacity: eraCaps[i], shortfall: eraAlloc.shortfall[i], received: eraAlloc.received[i] })), unfilled: eraAlloc.unfilled },
    'openiti: some eras have fewer sentences than their target; the shortfall was redistributed',
  );
}

interface EraPlan {
  era: EraSpec;
  /** The era's parsed files in output order, each with its `alloc`. */
  files: FileEntry[];
  authors: number;
  written: number;
}

/** Splits each era's allocation over its authors, then each author's over their files (sets `alloc`). */
function planEras(o: ResolvedOptions, parsedEntries: readonly FileEntry[], allocated: readonly number[]): EraPlan[] {
  return o.eras.map((era, i) => {
    const files = parsedEntries.filter((e) => e.era === i);
    const authors = allocateToAuthorsAndFiles(files, allocated[i], o.seed);
    return { era, files, authors, written: 0 };
  });
}

/**
 * Author balance: water-filling over authors (sorted by URI, seeded tie-breaks), then over each
 * author's files. Returns the number of authors.
 */
function allocateToAuthorsAndFiles(files: readonly FileEntry[], quota: number, seed: number): number {
  const authors = new Map<string, FileEntry[]>();
  for (const f of files) {
    const list = authors.get(f.authorUri) ?? [];
    list.push(f);
    authors.set(f.authorUri, list);
  }
  const authorList = [...authors.keys()].sort(cmp);
  const authorAlloc = waterFill(
    authorList.map((a) => authors.get(a)!.reduce((s, f) => s + f.capacity, 0)),
    quota,
    authorList.map((a) => seededKey(seed, a)),
  );
  authorList.forEach((a, k) => {
    const fs = authors.get(a)!;
    const fa = waterFill(fs.map((f) => f.capacity), authorAlloc[k], fs.map((f) => seededKey(seed, f.uri)));
    fs.forEach((f, j) => (f.alloc = fa[j]));
  });
  return authorList.length;
}

interface WriteResult {
  written: number;
  /** Files that contributed at least one sentence. */
  contributing: number;
}

/** Numbers the records of pass 2 and remembers their dedup digests. */
class CorpusSink {
  readonly seenAcross = new Digest64Set();
  readonly result: WriteResult = { written: 0, contributing: 0 };

  constructor(
    private readonly writer: JsonlAppender,
    private readonly dedupAcrossCorpus: boolean,
  ) {}

  writeFile(f: FileEntry, chosen: readonly Candidate[]): void {
    for (const c of chosen) {
      const rec: CorpusSentence = { text: c.text, source_uri: f.uri, date: f.date, char_len: c.charLen, idx: this.result.written++ };
      this.writer.write(rec);
      if (this.dedupAcrossCorpus) this.seenAcross.add(c.dh ?? 0, c.dl ?? 0);
    }
    if (chosen.length > 0) this.result.contributing++;
  }
}

/** Pass 2: select and write to `<outPath>.tmp-<pid>`, renamed into place only when complete. */
async function writeCorpus(plans: EraPlan[], ctx: PassContext): Promise<WriteResult> {
  const { o } = ctx;
  const tmp = `${o.outPath}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const writer = new JsonlAppender(tmp);
  let writerOpen = true;
  const sink = new CorpusSink(writer, o.dedupAcrossCorpus);
  const selectBytes = plans.reduce((a, p) => p.files.reduce((b, f) => (f.capacity > 0 ? b + f.bytes : b), a), 0);
  const progress = createProgress({ label: 'openiti: select', total: selectBytes, mode: o.progressMode });
  try {
    await selectEras(plans, ctx, sink, progress, selectBytes);
    writerOpen = false;
    writer.close();
  } catch (err) {
    try {
      if (writerOpen) writer.close();
    } finally {
      rmSync(tmp, { force: true });
    }
    throw err;
  } finally {
    progress.stop();
  }
  if (sink.result.written === 0) {
    rmSync(tmp, { force: true });
    throw new CorpusBuildError(`no sentences written (all ${ctx.sentences.eligible} eligible sentences were dropped as duplicates or their files became unreadable)`);
  }
  renameSync(tmp, o.outPath);
  return sink.result;
}

/** Pass 2's loop over each era's files in output order, drawing from those with sentences allotted. */
async function selectEras(plans: EraPlan[], ctx: PassContext, sink: CorpusSink, progress: Progress, selectBytes: number): Promise<void> {
  let done = 0;
  for (const plan of plans) {
    let carry = 0; // sentences lost to cross-corpus dedup, made up by later files of the era
    for (const f of plan.files) {
      ctx.o.signal?.throwIfAborted();
      const want = f.alloc + Math.min(carry, f.capacity - f.alloc);
      if (want > 0) {
        const chosen = await drawFromFile(f, want, ctx, sink.seenAcross);
        sink.writeFile(f, chosen);
        plan.written += chosen.length;
        carry += f.alloc - chosen.length;
      }
      if (f.capacity > 0) {
        done += f.bytes;
        progress.update(done);
        ctx.onProgress?.(done, selectBytes, 'select');
      }
    }
    if (carry > 0) ctx.sentences.unfilledAfterDedup += carry;
  }
}

/**
 * Up to `want` sentences of one file, in file order: those with the lowest seeded priorities, or all of
 * them without a draw when `want` covers the file; a sentence already written from another file is dropped.
 */
async function drawFromFile(f: FileEntry, want: number, ctx: PassContext, seenAcross: Digest64Set): Promise<Candidate[]> {
  const { o, sentences } = ctx;
  const fileKey = seededKey(o.seed, f.uri);
  // Taking every eligible sentence needs no draw; otherwise keep the `want` lowest priorities.
  const takeAll = want >= f.eligible;
  const all: Candidate[] = [];
  const top = new TopK(takeAll ? 0 : want);
  try {
    await scanEligible(f.file, ctx.filter, (line) => {
      const i = line.index;
      const pr = takeAll ? 0 : linePriority(fileKey, i);
      if (!takeAll && !top.wouldAccept(pr, i)) return; // most lines stop here: no string, no hashing
      const text = line.text();
      let dh = 0;
      let dl = 0;
      if (o.dedupAcrossCorpus) {
        const d = hash('sha256', line.hasMarks ? dedupKey(text) : text, 'buffer');
        dh = d.readUInt32LE(0);
        dl = d.readUInt32LE(4);
        if (seenAcross.has(dh, dl)) {
          sentences.duplicateAcrossCorpus++;
          return;
        }
      }
      const c: Candidate = { priority: pr, index: i, text, charLen: line.charLen, dh, dl };
      if (takeAll) all.push(c);
      else top.offer(c);
    });
  } catch (err) {
    const { reason, detail } = classifyReadError(err);
    ctx.problems.skip(reason, f.file, `${detail} (changed between passes)`);
  }
  return takeAll ? all : top.inFileOrder();
}

interface BuildFacts {
  o: ResolvedOptions;
  meta: MetadataResult;
  metadataExamples: string[];
  selection: FileSelection;
  counted: CountResult;
  ctx: PassContext;
  plans: EraPlan[];
  eraCaps: number[];
  eraAlloc: EraAllocation;
  written: WriteResult;
  corpusSha256: string;
  durationMs: CorpusBuildSummary['durationMs'];
}

function assembleSummary(b: BuildFacts): CorpusBuildSummary {
  const { o, meta } = b;
  return {
    outPath: o.outPath,
    corpusSha256: b.corpusSha256,
    totalWritten: b.written.written,
    maxSentences: o.maxSentences,
    shortfall: o.maxSentences - b.written.written,
    options: optionsSummary(o),
    metadata: {
      rows: meta.rows.length,
      badRows: meta.problems.filter((p) => p.reason === 'bad_row').length,
      duplicateRows: meta.problems.filter((p) => p.reason === 'duplicate_uri').length,
      examples: b.metadataExamples,
    },
    files: {
      considered: meta.rows.length,
      statusFiltered: b.selection.statusFiltered,
      excluded: b.selection.excluded,
      outsideEras: b.selection.outsideEras,
      skipped: b.ctx.problems.skipped,
      parsed: b.counted.parsed,
      withSentences: b.counted.parsedEntries.filter((e) => e.eligible > 0).length,
      contributing: b.written.contributing,
      examples: b.ctx.problems.examples,
    },
    sentences: b.ctx.sentences,
    eras: eraSummaries(b.plans, b.eraCaps, b.eraAlloc),
    bytesParsed: b.counted.bytesParsed,
    durationMs: b.durationMs,
  };
}

function optionsSummary(o: ResolvedOptions): CorpusBuildSummary['options'] {
  return {
    openitiRoot: o.root,
    metadataPath: o.metadataPath,
    minCharLen: o.minCharLen,
    maxCharLen: o.maxCharLen,
    statusFilter: o.statusFilter,
    seed: o.seed,
    maxPerFile: o.maxPerFile,
    exclude: [...o.exclude],
    dedupAcrossCorpus: o.dedupAcrossCorpus,
    minArabicLetters: o.minArabicLetters,
    maxForeignLetterRatio: o.maxForeignLetterRatio,
    eras: o.eras.map((e) => ({ ...e })),
  };
}

function eraSummaries(plans: readonly EraPlan[], eraCaps: readonly number[], eraAlloc: EraAllocation): EraSummary[] {
  return plans.map((es, i) => ({
    name: es.era.name,
    from: es.era.from,
    to: es.era.to,
    fraction: es.era.fraction,
    files: es.files.length,
    authors: es.authors,
    capacity: eraCaps[i],
    target: eraAlloc.targets[i],
    shortfall: eraAlloc.shortfall[i],
    received: eraAlloc.received[i],
    allocated: eraAlloc.allocated[i],
    written: es.written,
  }));
}

interface ResolvedOptions {
  root: string;
  metadataPath: string;
  outPath: string;
  maxSentences: number;
  minCharLen: number;
  maxCharLen: number;
  statusFilter: StatusFilter;
  seed: number;
  eras: readonly EraSpec[];
  maxPerFile: number | null;
  exclude: readonly string[];
  dedupAcrossCorpus: boolean;
  minArabicLetters: number;
  maxForeignLetterRatio: number;
  progressMode?: ProgressOptions['mode'];
  signal?: AbortSignal;
}

function resolveOptions(opts: CorpusBuildOptions): ResolvedOptions {
  const fail = (field: string, why: string): never => {
    throw new CorpusBuildError(`corpus options: ${field} ${why}`);
  };
  if (!opts.openitiRoot) fail('openitiRoot', 'is required');
  if (!opts.outPath) fail('outPath', 'is required');
  const root = path.resolve(opts.openitiRoot);
  if (!existsSync(root) || !statSync(root).isDirectory()) fail('openitiRoot', `${root} is not a directory (set data.openiti / --openiti-root to an OpenITI checkout)`);
  const metadataPath = path.resolve(opts.metadataPath ?? path.join(root, DEFAULT_METADATA_RELPATH));
  if (!existsSync(metadataPath)) fail('metadataPath', `${metadataPath} does not exist`);
  const int = (field: string, v: number | undefined, def: number, min: number): number => {
    const x = v ?? def;
    if (!Number.isInteger(x) || x < min) fail(field, `must be an integer ≥ ${min} (got ${x})`);
    return x;
  };
  const maxSentences = int('maxSentences', opts.maxSentences, 200_000, 1);
  const minCharLen = int('minCharLen', opts.minCharLen, 30, 1);
  const maxCharLen = int('maxCharLen', opts.maxCharLen, 300, 1);
  if (minCharLen > maxCharLen) fail('minCharLen', `(${minCharLen}) is greater than maxCharLen (${maxCharLen})`);
  const statusFilter = opts.statusFilter ?? 'pri';
  if (!['pri', 'sec', 'all'].includes(statusFilter)) fail('statusFilter', `must be "pri", "sec" or "all" (got ${JSON.stringify(statusFilter)})`);
  const seed = opts.seed ?? 42;
  if (!Number.isInteger(seed)) fail('seed', `must be an integer (got ${seed})`);
  const eras = opts.eras ?? DEFAULT_ERAS;
  validateEras(eras);
  const maxPerFile = opts.maxPerFile ?? null;
  if (maxPerFile !== null && (!Number.isInteger(maxPerFile) || maxPerFile < 1)) fail('maxPerFile', `must be a positive integer or null (got ${maxPerFile})`);
  const exclude = opts.exclude ?? [];
  if (!Array.isArray(exclude) || exclude.some((p) => typeof p !== 'string' || p === '')) fail('exclude', 'must be a list of non-empty glob patterns');
  const maxForeignLetterRatio = opts.maxForeignLetterRatio ?? 0.2;
  if (!(maxForeignLetterRatio >= 0 && maxForeignLetterRatio <= 1)) fail('maxForeignLetterRatio', 'must be in [0, 1]');
  return {
    root,
    metadataPath,
    outPath: path.resolve(opts.outPath),
    maxSentences,
    minCharLen,
    maxCharLen,
    statusFilter,
    seed,
    eras,
    maxPerFile,
    exclude,
    dedupAcrossCorpus: opts.dedupAcrossCorpus ?? true,
    minArabicLetters: int('minArabicLetters', opts.minArabicLetters, 10, 0),
    maxForeignLetterRatio,
    progressMode: opts.progressMode,
    signal: opts.signal,
  };
}

// --- reading and writing corpus.jsonl ------------------------------------------------------------

function checkSentence(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'record is not an object';
  const r = v as Record<string, unknown>;
  if (typeof r.text !== 'string' || r.text.length === 0) return 'field "text" must be a non-empty string';
  if (typeof r.source_uri !== 'string' || r.source_uri.length === 0) return 'field "source_uri" must be a non-empty string';
  for (const f of ['date', 'char_len', 'idx'] as const) if (!Number.isInteger(r[f])) return `field "${f}" must be an integer`;
  return null;
}

/** Stream a corpus.jsonl (flat memory); a malformed record throws with file:line and the field. */
export async function* readCorpus(file: string): AsyncGenerator<CorpusSentence> {
  for await (const { value, line } of readJsonl<CorpusSentence>(file)) {
    const problem = checkSentence(value);
    if (problem) throw new JsonlParseError(file, line, problem);
    yield value;
  }
}

/** Read a whole corpus into memory (fine for the 200k-sentence target). */
export async function loadCorpus(file: string): Promise<CorpusSentence[]> {
  const out: CorpusSentence[] = [];
  for await (const s of readCorpus(file)) out.push(s);
  return out;
}

/**
 * Write sentences as corpus.jsonl atomically, in the given order, with `idx`
 * renumbered from 0 and `char_len` recomputed, in the key order of docs/corpus.md#corpusjsonl.
 */
export function saveCorpus(file: string, sentences: Iterable<Pick<CorpusSentence, 'text' | 'source_uri' | 'date'>>): number {
  let idx = 0;
  const records: CorpusSentence[] = [];
  for (const s of sentences) records.push({ text: s.text, source_uri: s.source_uri, date: s.date, char_len: codePointLength(s.text), idx: idx++ });
  writeJsonlAtomic(file, records);
  return idx;
}
