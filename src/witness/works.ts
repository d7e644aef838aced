/**
 * Works as the witness index reads them: every content line of an OpenITI file (the corpus parser's
 * cleaning, so a line's text is what corpus.jsonl would hold) with its physical line number and the page
 * and milestone it belongs to.
 *
 * OpenITI mARkdown closes a page with `PageVxxPyyy` and a milestone with `msNN`
 * (docs/openiti.md#positions-in-a-text-pages-and-milestones): a marker is written where the page or milestone
 * ends, so a line belongs to the first marker at or after it. Lines after the last marker of a file have none
 * (null).
 */
import path from 'node:path';
import { DEFAULT_METADATA_RELPATH, globToRegExp, readMetadata, resolveTextPath, type StatusFilter } from '../openiti/metadata';
import { OpenITILineParser } from '../openiti/line-parser';
import { forEachLine } from '../openiti/read-lines';

export interface WitnessLine {
  /** 1-based physical line in the file. */
  line: number;
  text: string;
  /** Page marker (`PageV01P005`) the line belongs to, or null. */
  page: string | null;
  /** Milestone (`ms12`) the line belongs to, or null. */
  ms: string | null;
}

export interface WitnessWork {
  /** Version URI (as a corpus sentence's source_uri). */
  uri: string;
  /** Author's death year (hijri), or null. */
  date: number | null;
  lines: WitnessLine[];
}

const PAGE = /PageV\d+P\d+/;
const MILESTONE = /(?:^|[\s#~])(ms\d+)(?=\s|$)/;

/** Read one OpenITI file into lines with their page and milestone. */
export async function readWitnessWork(file: string, uri: string, date: number | null): Promise<WitnessWork> {
  const parser = new OpenITILineParser(file);
  const lines: WitnessLine[] = [];
  let pageFrom = 0; // first line still waiting for its page marker
  let msFrom = 0;
  await forEachLine(file, (raw) => {
    const text = parser.push(raw);
    if (text !== null) lines.push({ line: parser.stats.lines, text, page: null, ms: null });
    const page = PAGE.exec(raw)?.[0];
    if (page) {
      for (; pageFrom < lines.length; pageFrom++) lines[pageFrom].page = page;
    }
    const ms = MILESTONE.exec(raw)?.[1];
    if (ms) {
      for (; msFrom < lines.length; msFrom++) lines[msFrom].ms = ms;
    }
  });
  parser.end();
  return { uri, date, lines };
}

export interface WorkSelection {
  openitiRoot: string;
  /** Version-URI globs of the works to read (default: every work with a metadata row). */
  include?: readonly string[];
  /** Version-URI globs left out. */
  exclude?: readonly string[];
  /** Metadata status filter (default 'all': every version present). */
  status?: StatusFilter;
}

export interface WorkFile {
  uri: string;
  date: number;
  file: string;
}

/** The files of the selected works, sorted by URI; missing files are counted in `missing`, never fatal. */
export async function selectWorkFiles(sel: WorkSelection): Promise<{ files: WorkFile[]; missing: string[] }> {
  const root = path.resolve(sel.openitiRoot);
  const metadataPath = path.join(root, DEFAULT_METADATA_RELPATH);
  const meta = await readMetadata(metadataPath);
  const inc = (sel.include ?? []).map((g) => globToRegExp(g));
  const exc = (sel.exclude ?? []).map((g) => globToRegExp(g));
  const status = sel.status ?? 'all';
  const files: WorkFile[] = [];
  const missing: string[] = [];
  for (const r of meta.rows) {
    if (status !== 'all' && r.status !== status) continue;
    if (inc.length > 0 && !inc.some((re) => re.test(r.versionUri))) continue;
    if (exc.some((re) => re.test(r.versionUri))) continue;
    const f = resolveTextPath(root, path.dirname(metadataPath), r.localPath);
    if (f.ok) files.push({ uri: r.versionUri, date: r.date, file: f.file });
    else missing.push(r.versionUri);
  }
  files.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return { files, missing };
}
