/**
 * Build `corpus.jsonl` from an OpenITI checkout (spec §3, §6): metadata → status/exclude/era filters →
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
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { createProgress, type ProgressOptions } from '../util/progress';
import { DEFAULT_METADATA_RELPATH, makeExcluder, readMetadata, resolveTextPath, type StatusFilter } from './metadata';
import { codePointLength, forEachLineBytes, NoHeaderError, NotUtf8Error, OpenITILineParser, type ParseOptions } from './parse';
import { allocateEras, DEFAULT_ERAS, eraIndex, linePriority, seededKey, TopK, validateEras, waterFill, type Candidate, type EraSpec } from './sampling';

/** One line of corpus.jsonl (spec §3.3); the key order is part of the format. */
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
  /** Default 200000 (spec §3.1). */
  maxSentences?: number;
  /** Default 30 (code points). */
  minCharLen?: number;
  /** Default 300 (code points). */
  maxCharLen?: number;
  /** Default "pri" (spec §2.3). */
  statusFilter?: StatusFilter;
  /** Default 42. */
  seed?: number;
  /** Default: the four eras of spec §3.2 (10/30/30/30). */
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
  return text.replace(/[\u064b-\u065f\u0670\u0640]/g, '');
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

/**
 * Build the corpus and return a small, JSON-serialisable summary. `onProgress(done, total, stage)`
 * reports bytes read in each pass (stage "count", then "select"), for heartbeats.
 */
export async function buildCorpus(
  options: CorpusBuildOptions,
  onProgress?: (done: number, total: number, stage: 'count' | 'select') => void,
): Promise<CorpusBuildSummary> {
  const t0 = Date.now();
  const log = childLogger('openiti');
  const o = resolveOptions(options);
  const { root, metadataPath } = o;

  const meta = await readMetadata(metadataPath);
  const metadataExamples: string[] = [];
  meta.problems.forEach((p, i) => {
    if (metadataExamples.length < EXAMPLES_PER_REASON) metadataExamples.push(`${p.where}: ${p.detail}`);
    if (i < LOGGED_PER_REASON) log.warn({ reason: p.reason, where: p.where, detail: p.detail }, 'openiti: metadata row skipped');
    else if (i === LOGGED_PER_REASON) log.warn({ problems: meta.problems.length }, 'openiti: further metadata problems are counted in the summary, not logged one by one');
  });

  const skipped = Object.fromEntries(FILE_SKIP_REASONS.map((r) => [r, 0])) as Record<FileSkipReason, number>;
  const examples: Record<string, string[]> = {};
  const logged: Record<string, number> = {};
  const note = (reason: string, where: string, detail: string, level: 'warn' | 'info' = 'warn') => {
    const list = (examples[reason] ??= []);
    if (list.length < EXAMPLES_PER_REASON) list.push(`${where} — ${detail}`);
    logged[reason] = (logged[reason] ?? 0) + 1;
    if (logged[reason] <= LOGGED_PER_REASON) log[level]({ reason, path: where, detail }, `openiti: ${reason}`);
    else if (logged[reason] === LOGGED_PER_REASON + 1) log[level]({ reason }, `openiti: further "${reason}" files are counted in the summary, not logged one by one`);
  };

  // --- select candidate files from the metadata ---
  const excluder = makeExcluder(o.exclude);
  const metadataDir = path.dirname(metadataPath);
  let statusFiltered = 0;
  let excluded = 0;
  let outsideEras = 0;
  const entries: FileEntry[] = [];
  for (const row of meta.rows) {
    if (o.statusFilter !== 'all' && row.status !== o.statusFilter) {
      statusFiltered++;
      continue;
    }
    const pattern = excluder(row.versionUri);
    if (pattern !== null) {
      excluded++;
      note('excluded', row.versionUri, `matches exclude pattern ${pattern}`, 'info');
      continue;
    }
    const era = eraIndex(row.date, o.eras);
    if (era === -1) {
      outsideEras++;
      note('outside_eras', row.versionUri, `date ${row.date} is in no configured era`, 'info');
      continue;
    }
    const r = resolveTextPath(root, metadataDir, row.localPath);
    if (!r.ok) {
      skipped[r.reason]++;
      note(r.reason, row.localPath, `${row.versionUri} — ${r.detail}`);
      continue;
    }
    entries.push({ uri: row.versionUri, authorUri: row.authorUri, date: row.date, era, file: r.file, bytes: r.bytes, eligible: 0, capacity: 0, alloc: 0 });
  }
  // Deterministic order = output order: era, then source URI.
  entries.sort((a, b) => a.era - b.era || cmp(a.uri, b.uri));

  // --- pass 1: count eligible sentences per file ---
  const filter: FilterOptions = { minCharLen: o.minCharLen, maxCharLen: o.maxCharLen, minArabicLetters: o.minArabicLetters, maxForeignLetterRatio: o.maxForeignLetterRatio };
  const sentences = { contentLines: 0, notArabic: 0, tooShort: 0, tooLong: 0, duplicateInFile: 0, eligible: 0, duplicateAcrossCorpus: 0, unfilledAfterDedup: 0 };
  const totalBytes = entries.reduce((a, e) => a + e.bytes, 0);
  let bytesParsed = 0;
  let parsed = 0;
  const parsedEntries: FileEntry[] = [];
  const p1 = createProgress({ label: 'openiti: count', total: totalBytes, mode: o.progressMode });
  let done = 0;
  try {
    for (const e of entries) {
      o.signal?.throwIfAborted();
      try {
        const s = await scanEligible(e.file, filter);
        parsed++;
        bytesParsed += s.bytes;
        sentences.contentLines += s.contentLines;
        sentences.notArabic += s.notArabic;
        sentences.tooShort += s.tooShort;
        sentences.tooLong += s.tooLong;
        sentences.duplicateInFile += s.duplicateInFile;
        sentences.eligible += s.eligible;
        e.eligible = s.eligible;
        e.capacity = o.maxPerFile === null ? s.eligible : Math.min(s.eligible, o.maxPerFile);
        parsedEntries.push(e);
      } catch (err) {
        const { reason, detail } = classifyReadError(err);
        skipped[reason]++;
        note(reason, e.file, detail);
      }
      done += e.bytes;
      p1.update(done);
      onProgress?.(done, totalBytes, 'count');
    }
  } finally {
    p1.stop();
  }
  const countMs = Date.now() - t0;

  // --- allocation: eras (with redistribution), then authors, then files ---
  const eraCaps = o.eras.map((_, i) => parsedEntries.filter((e) => e.era === i).reduce((a, e) => a + e.capacity, 0));
  const totalCapacity = eraCaps.reduce((a, b) => a + b, 0);
  if (totalCapacity === 0) {
    throw new CorpusBuildError(
      `no sentences left after filters: ${meta.rows.length} metadata rows, ${parsed} files parsed ` +
        `(status filter "${o.statusFilter}": ${statusFiltered} rows filtered; excluded ${excluded}; outside eras ${outsideEras}; ` +
        `skipped ${FILE_SKIP_REASONS.map((r) => `${r} ${skipped[r]}`).join(', ')}); ` +
        `lines: ${sentences.contentLines} content, ${sentences.notArabic} not Arabic, ${sentences.tooShort} shorter than ${o.minCharLen}, ${sentences.tooLong} longer than ${o.maxCharLen}. ` +
        `Check openitiRoot, statusFilter, eras, exclude and minCharLen/maxCharLen.`,
    );
  }
  const eraAlloc = allocateEras(o.maxSentences, o.eras.map((e) => e.fraction), eraCaps);
  if (eraAlloc.shortfall.some((s) => s > 0)) {
    log.warn(
      { eras: o.eras.map((e, i) => ({ era: e.name, target: eraAlloc.targets[i], capacity: eraCaps[i], shortfall: eraAlloc.shortfall[i], received: eraAlloc.received[i] })), unfilled: eraAlloc.unfilled },
      'openiti: some eras have fewer sentences than their target; the shortfall was redistributed',
    );
  }
  const eraStats = o.eras.map((era, i) => {
    const files = parsedEntries.filter((e) => e.era === i);
    const authors = new Map<string, FileEntry[]>();
    for (const f of files) {
      const list = authors.get(f.authorUri) ?? [];
      list.push(f);
      authors.set(f.authorUri, list);
    }
    const authorList = [...authors.keys()].sort(cmp);
    const authorAlloc = waterFill(
      authorList.map((a) => authors.get(a)!.reduce((s, f) => s + f.capacity, 0)),
      eraAlloc.allocated[i],
      authorList.map((a) => seededKey(o.seed, a)),
    );
    authorList.forEach((a, k) => {
      const fs = authors.get(a)!;
      const fa = waterFill(fs.map((f) => f.capacity), authorAlloc[k], fs.map((f) => seededKey(o.seed, f.uri)));
      fs.forEach((f, j) => (f.alloc = fa[j]));
    });
    return { era, files, authors: authorList.length, written: 0 };
  });

  // --- pass 2: select and write ---
  const t1 = Date.now();
  const tmp = `${o.outPath}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const writer = new JsonlAppender(tmp);
  let writerOpen = true;
  const seenAcross = new Digest64Set();
  let idx = 0;
  let contributing = 0;
  const selectBytes = parsedEntries.filter((e) => e.capacity > 0).reduce((a, e) => a + e.bytes, 0);
  const p2 = createProgress({ label: 'openiti: select', total: selectBytes, mode: o.progressMode });
  let done2 = 0;
  try {
    for (const es of eraStats) {
      let carry = 0; // sentences lost to cross-corpus dedup, made up by later files of the era
      for (const f of es.files) {
        o.signal?.throwIfAborted();
        const want = f.alloc + Math.min(carry, f.capacity - f.alloc);
        if (want > 0) {
          const fileKey = seededKey(o.seed, f.uri);
          // Taking every eligible sentence needs no draw; otherwise keep the `want` lowest priorities.
          const takeAll = want >= f.eligible;
          const all: Candidate[] = [];
          const top = new TopK(takeAll ? 0 : want);
          try {
            await scanEligible(f.file, filter, (line) => {
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
            skipped[reason]++;
            note(reason, f.file, `${detail} (changed between passes)`);
          }
          const chosen = takeAll ? all : top.inFileOrder();
          for (const c of chosen) {
            const rec: CorpusSentence = { text: c.text, source_uri: f.uri, date: f.date, char_len: c.charLen, idx: idx++ };
            writer.write(rec);
            if (o.dedupAcrossCorpus) seenAcross.add(c.dh ?? 0, c.dl ?? 0);
          }
          if (chosen.length > 0) contributing++;
          es.written += chosen.length;
          carry += f.alloc - chosen.length;
        }
        if (f.capacity > 0) {
          done2 += f.bytes;
          p2.update(done2);
          onProgress?.(done2, selectBytes, 'select');
        }
      }
      if (carry > 0) sentences.unfilledAfterDedup += carry;
    }
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
    p2.stop();
  }
  if (idx === 0) {
    rmSync(tmp, { force: true });
    throw new CorpusBuildError(`no sentences written (all ${sentences.eligible} eligible sentences were dropped as duplicates or their files became unreadable)`);
  }
  renameSync(tmp, o.outPath);
  const corpusSha256 = await sha256File(o.outPath);

  const summary: CorpusBuildSummary = {
    outPath: o.outPath,
    corpusSha256,
    totalWritten: idx,
    maxSentences: o.maxSentences,
    shortfall: o.maxSentences - idx,
    options: {
      openitiRoot: root,
      metadataPath,
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
    },
    metadata: {
      rows: meta.rows.length,
      badRows: meta.problems.filter((p) => p.reason === 'bad_row').length,
      duplicateRows: meta.problems.filter((p) => p.reason === 'duplicate_uri').length,
      examples: metadataExamples,
    },
    files: {
      considered: meta.rows.length,
      statusFiltered,
      excluded,
      outsideEras,
      skipped,
      parsed,
      withSentences: parsedEntries.filter((e) => e.eligible > 0).length,
      contributing,
      examples,
    },
    sentences,
    eras: eraStats.map((es, i) => ({
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
    })),
    bytesParsed,
    durationMs: { count: countMs, select: Date.now() - t1, total: Date.now() - t0 },
  };
  log.info(
    { out: o.outPath, written: idx, sha256: corpusSha256, eras: summary.eras.map((e) => ({ era: e.name, target: e.target, written: e.written })), skipped },
    `openiti: wrote ${idx} sentences`,
  );
  return summary;
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

/** Read a whole corpus into memory (spec's load_corpus; fine for the 200k-sentence target). */
export async function loadCorpus(file: string): Promise<CorpusSentence[]> {
  const out: CorpusSentence[] = [];
  for await (const s of readCorpus(file)) out.push(s);
  return out;
}

/**
 * Write sentences as corpus.jsonl atomically (spec's save_corpus), in the given order, with `idx`
 * renumbered from 0 and `char_len` recomputed, in the spec's key order.
 */
export function saveCorpus(file: string, sentences: Iterable<Pick<CorpusSentence, 'text' | 'source_uri' | 'date'>>): number {
  let idx = 0;
  const records: CorpusSentence[] = [];
  for (const s of sentences) records.push({ text: s.text, source_uri: s.source_uri, date: s.date, char_len: codePointLength(s.text), idx: idx++ });
  writeJsonlAtomic(file, records);
  return idx;
}
