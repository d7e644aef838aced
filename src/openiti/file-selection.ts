/**
 * Which files a build reads: metadata rows through the status filter, the exclude patterns and the eras
 * to a readable path; and the record of every file or row left out, by reason.
 */
import path from 'node:path';
import { logFormat, type Logger } from '../util/log';
import type { ResolvedOptions } from './build-options';
import { FILE_SKIP_REASONS, type FileSkipReason } from './build-summary';
import { resolveTextPath, type MetadataProblem, type MetadataRow } from './metadata';
import { NoHeaderError, NotUtf8Error } from './parse-errors';
import { eraIndex } from './sampling';
import { makeExcluder } from './work-exclusion';

const EXAMPLES_PER_REASON = 10;
const LOGGED_PER_REASON = 20;

export interface FileEntry {
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

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function classifyReadError(err: unknown): { reason: FileSkipReason; detail: string } {
  if (err instanceof NotUtf8Error) return { reason: 'not_utf8', detail: err.detail };
  if (err instanceof NoHeaderError) return { reason: 'no_header', detail: err.detail };
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string') return { reason: 'unreadable', detail: `${e.code}: ${e.message}` };
  throw err; // a bug, not a data problem
}

/** Logs the first metadata problems one by one (the rest only as a count); returns the summary's examples. */
export function reportMetadataProblems(problems: readonly MetadataProblem[], log: Logger): string[] {
  const examples: string[] = [];
  problems.forEach((p, i) => {
    if (examples.length < EXAMPLES_PER_REASON) examples.push(`${p.where}: ${p.detail}`);
    // Human logs aggregate every row into one line with a count; structured logs keep the first ones.
    const summary = `metadata rows skipped: ${p.reason.replace(/_/g, ' ')}`;
    if (i < LOGGED_PER_REASON || logFormat() === 'human')
      log.warn({ reason: p.reason, where: p.where, detail: p.detail, summary }, 'openiti: metadata row skipped');
    else if (i === LOGGED_PER_REASON)
      log.warn({ problems: problems.length }, 'openiti: further metadata problems are counted in the summary, not logged one by one');
  });
  return examples;
}

/**
 * Files left out, by reason: counted, a few kept as examples for the summary, the first ones logged
 * (a broken checkout can have thousands; the log must stay readable).
 */
/** How a human log line names a reason (the metadata row lists a text whose author folder is absent). */
const SKIP_WORDS: Record<string, string> = { author_not_in_checkout: 'metadata rows skipped: author not in this checkout' };

export class FileProblems {
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
    if (this.logged[reason] <= LOGGED_PER_REASON || logFormat() === 'human')
      this.log[level]({ reason, path: where, detail, summary }, `openiti: ${reason}`);
    else if (this.logged[reason] === LOGGED_PER_REASON + 1)
      this.log[level]({ reason }, `openiti: further "${reason}" files are counted in the summary, not logged one by one`);
  }

  skip(reason: FileSkipReason, where: string, detail: string): void {
    this.skipped[reason]++;
    this.note(reason, where, detail);
  }
}

export interface FileSelection {
  /** In output order: era, then source URI. */
  entries: FileEntry[];
  statusFiltered: number;
  excluded: number;
  outsideEras: number;
}

/** Candidate files from the metadata: status filter, exclude patterns, eras, then a readable path. */
export function selectFiles(rows: readonly MetadataRow[], o: ResolvedOptions, problems: FileProblems): FileSelection {
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
    sel.entries.push({
      uri: row.versionUri,
      authorUri: row.authorUri,
      date: row.date,
      era,
      file: r.file,
      bytes: r.bytes,
      eligible: 0,
      capacity: 0,
      alloc: 0,
    });
  }
  // Deterministic order = output order: era, then source URI.
  sel.entries.sort((a, b) => a.era - b.era || cmp(a.uri, b.uri));
  return sel;
}
