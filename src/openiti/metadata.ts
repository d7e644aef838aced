/**
 * OpenITI metadata (release 2023-1-8 schema, docs/openiti.md#metadata): a TAB-separated file despite its `.csv` name,
 * multi-valued fields joined with " :: ", zero-padded `date`, `local_path` relative to the metadata
 * folder. Plus resolving a row to its text file inside the corpus root, never following a path that
 * leaves the root.
 */
import { createReadStream, existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { globToRegExp } from '../util/glob';

export const DEFAULT_METADATA_RELPATH = path.join('metadata', 'OpenITI_metadata_2023-1-8.csv');

/** Columns a row cannot do without. */
export const REQUIRED_COLUMNS = ['version_uri', 'date', 'status', 'local_path'] as const;

export type TextStatus = 'pri' | 'sec';
export type StatusFilter = TextStatus | 'all';

export interface MetadataRow {
  /** e.g. "0276IbnQutaybaDinawari.AdabKatib.JK000973-ara1" */
  versionUri: string;
  /** Author URI, the part before the first dot ("0276IbnQutaybaDinawari"). */
  authorUri: string;
  /** Book URI ("0276IbnQutaybaDinawari.AdabKatib"). */
  bookUri: string;
  /** Author's death year (hijri), parsed from the zero-padded `date`. */
  date: number;
  status: TextStatus;
  /** As written in the metadata (relative to the metadata folder). */
  localPath: string;
  tags: string[];
  titleAr: string;
  authorLat: string;
  tokLength: number | null;
  charLength: number | null;
  /** 1-based line in the metadata file. */
  line: number;
}

export interface MetadataProblem {
  reason: 'bad_row' | 'duplicate_uri';
  /** `file:line` */
  where: string;
  detail: string;
}

export interface MetadataResult {
  path: string;
  columns: string[];
  rows: MetadataRow[];
  problems: MetadataProblem[];
}

export class MetadataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetadataError';
  }
}

/** Split a multi-valued field (" :: "); empty fields give []. */
export function splitMulti(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(' :: ')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

function optionalInt(v: string | undefined): number | null {
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : null;
}

/**
 * Read the metadata TSV (streamed line by line). Rows with a wrong column count, an empty required
 * field, a non-numeric date or an unknown status are reported as problems (with file:line) and skipped;
 * a repeated version_uri keeps the first row. A missing file or a header without the required columns
 * throws.
 */
export async function readMetadata(file: string): Promise<MetadataResult> {
  if (!existsSync(file)) throw new MetadataError(`OpenITI metadata not found: ${file}`);
  const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let columns: string[] | null = null;
  let idx: Record<string, number> = {};
  const rows: MetadataRow[] = [];
  const problems: MetadataProblem[] = [];
  const seen = new Set<string>();
  let line = 0;
  for await (let text of rl) {
    line++;
    if (line === 1) text = text.replace(/^\ufeff/, '');
    if (text.trim() === '') continue;
    const fields = text.split('\t');
    if (!columns) {
      columns = fields.map((c) => c.trim());
      idx = Object.fromEntries(columns.map((c, i) => [c, i]));
      const missing = REQUIRED_COLUMNS.filter((c) => !(c in idx));
      if (missing.length > 0) {
        const hint = columns.length === 1 && text.includes(',') ? ' (the file must be tab-separated)' : '';
        throw new MetadataError(`${file}:${line}: metadata header lacks column(s) ${missing.join(', ')}${hint}`);
      }
      continue;
    }
    const where = `${file}:${line}`;
    const bad = (detail: string) => problems.push({ reason: 'bad_row', where, detail });
    if (fields.length !== columns.length) {
      bad(`expected ${columns.length} tab-separated columns, got ${fields.length}`);
      continue;
    }
    const get = (c: string) => fields[idx[c]]?.trim() ?? '';
    const empty = REQUIRED_COLUMNS.filter((c) => get(c) === '');
    if (empty.length > 0) {
      bad(`empty required field(s) ${empty.join(', ')}`);
      continue;
    }
    const versionUri = get('version_uri');
    const dateText = get('date');
    if (!/^\d{1,4}$/.test(dateText)) {
      bad(`date ${JSON.stringify(dateText)} is not a hijri year`);
      continue;
    }
    const status = get('status');
    if (status !== 'pri' && status !== 'sec') {
      bad(`status ${JSON.stringify(status)} is neither "pri" nor "sec"`);
      continue;
    }
    if (seen.has(versionUri)) {
      problems.push({ reason: 'duplicate_uri', where, detail: `version_uri ${versionUri} already listed; row skipped` });
      continue;
    }
    seen.add(versionUri);
    const dot = versionUri.indexOf('.');
    const dot2 = versionUri.indexOf('.', dot + 1);
    rows.push({
      versionUri,
      authorUri: dot === -1 ? versionUri : versionUri.slice(0, dot),
      bookUri: dot2 === -1 ? versionUri : versionUri.slice(0, dot2),
      date: Number(dateText),
      status,
      localPath: get('local_path'),
      tags: splitMulti(get('tags')),
      titleAr: splitMulti(get('title_ar'))[0] ?? '',
      authorLat: get('author_lat'),
      tokLength: optionalInt(get('tok_length')),
      charLength: optionalInt(get('char_length')),
      line,
    });
  }
  if (!columns) throw new MetadataError(`${file}: metadata file is empty`);
  return { path: file, columns, rows, problems };
}

// --- exclude patterns --------------------------------------------------------------------------

/** Exclude patterns are globs (`*` any run, `?` one character) matched against the whole version URI. */
export { globToRegExp };

// --- resolving local_path ----------------------------------------------------------------------

/** Extensions a repository file may carry that the metadata's local_path lacks (or the reverse). */
export const TEXT_EXTENSIONS = ['', '.mARkdown', '.completed', '.inProgress'] as const;

export type ResolveResult =
  | { ok: true; file: string; bytes: number }
  | { ok: false; reason: 'path_outside_root' | 'missing' | 'author_not_in_checkout'; detail: string; tried: string[] };

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Find the text file of a metadata row. Candidates, in order: local_path relative to the metadata
 * folder (the release layout), relative to the corpus root, and `data/…` under the root when the path
 * starts with `../data/` (a metadata file moved to the root). Each candidate is tried with the
 * extension variants. Candidates outside the root are never opened; if all are outside, the row is a
 * path traversal. Symlinks are resolved before the containment check.
 */
export function resolveTextPath(root: string, metadataDir: string, localPath: string): ResolveResult {
  const rootReal = realpathSync(root);
  const bases: string[] = [];
  const push = (p: string) => {
    if (!bases.includes(p)) bases.push(p);
  };
  push(path.resolve(metadataDir, localPath));
  push(path.resolve(root, localPath));
  const norm = localPath.replace(/\\/g, '/');
  if (norm.startsWith('../data/')) push(path.resolve(root, norm.slice(3)));
  const safe = bases.filter((b) => inside(root, b));
  if (safe.length === 0) {
    return {
      ok: false,
      reason: 'path_outside_root',
      detail: `local_path ${JSON.stringify(localPath)} leaves the corpus root ${root}`,
      tried: [],
    };
  }
  const tried: string[] = [];
  for (const base of safe) {
    const known = TEXT_EXTENSIONS.find((e) => e !== '' && base.endsWith(e));
    const stem = known ? base.slice(0, -known.length) : base;
    const variants = [base, ...TEXT_EXTENSIONS.map((e) => stem + e).filter((v) => v !== base)];
    for (const candidate of variants) {
      tried.push(candidate);
      let st;
      try {
        st = statSync(candidate);
      } catch {
        continue;
      }
      // A symlink pointing out of the root is a traversal too.
      const real = realpathSync(candidate);
      if (!inside(rootReal, real)) {
        return { ok: false, reason: 'path_outside_root', detail: `${candidate} resolves to ${real}, outside the corpus root`, tried };
      }
      return { ok: true, file: candidate, bytes: st.isFile() ? st.size : 0 };
    }
  }
  // Absent. Distinguish a partial checkout (the author's folder is not there at all) from a file
  // that is missing although its author is present.
  const first = safe[0];
  const authorDir = path.dirname(path.dirname(first));
  if (!existsSync(authorDir)) {
    return {
      ok: false,
      reason: 'author_not_in_checkout',
      detail: `author folder ${path.relative(root, authorDir)} absent (text not part of this checkout)`,
      tried,
    };
  }
  return {
    ok: false,
    reason: 'missing',
    detail: `file listed in the metadata is absent (tried ${tried.length} paths incl. .mARkdown/.completed/.inProgress)`,
    tried,
  };
}
