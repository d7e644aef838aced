/** What a golden set is built from: the source books' OpenITI versions, and distractors from the rest of the slice. */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildCorpus } from '../openiti/build-corpus';
import { loadCorpus } from '../openiti/corpus-file';
import { DEFAULT_METADATA_RELPATH, globToRegExp, readMetadata, resolveTextPath } from '../openiti/metadata';
import { readSourceLines } from '../retrieval/source-lines';
import { sha256Text } from '../util/hash';
import type { BookSources, GoldenBook } from './golden-types';

/** Each book's source versions (primary only, or all), each read line by line. */
export async function sourcesOf(o: {
  openitiRoot: string;
  books: readonly GoldenBook[];
  sourceStatus: 'pri' | 'all';
}): Promise<BookSources[]> {
  const root = path.resolve(o.openitiRoot);
  const metadataPath = path.join(root, DEFAULT_METADATA_RELPATH);
  const meta = await readMetadata(metadataPath);
  const out: BookSources[] = [];
  for (const book of o.books) {
    const re = globToRegExp(book.sourcePattern);
    const rows = meta.rows.filter((r) => re.test(r.versionUri) && (o.sourceStatus === 'all' || r.status === 'pri'));
    if (rows.length === 0)
      throw new Error(
        `golden book ${book.key}: no ${o.sourceStatus === 'pri' ? 'primary ' : ''}version matching ${book.sourcePattern} in ${metadataPath}`,
      );
    const docs = [];
    for (const r of rows.sort((a, b) => (a.versionUri < b.versionUri ? -1 : 1))) {
      const f = resolveTextPath(root, path.dirname(metadataPath), r.localPath);
      if (!f.ok) throw new Error(`golden book ${book.key}: source ${r.versionUri} is not readable (${f.detail})`);
      docs.push({ uri: r.versionUri, date: r.date, lines: await readSourceLines(f.file) });
    }
    out.push({ book, docs });
  }
  return out;
}

/** Distractor sentences from the rest of the slice (cached by options). */
export async function distractorSample(o: {
  openitiRoot: string;
  cacheDir: string;
  count: number;
  exclude: string[];
  minCharLen: number;
  maxCharLen: number;
  seed: number;
}) {
  if (o.count === 0) return [];
  const key = sha256Text(JSON.stringify({ ...o, cacheDir: undefined, v: 1 })).slice(0, 16);
  const file = path.join(o.cacheDir, `distractors-${key}.jsonl`);
  if (!existsSync(file)) {
    mkdirSync(o.cacheDir, { recursive: true });
    const tmp = `${file}.build`;
    rmSync(tmp, { force: true });
    await buildCorpus({
      openitiRoot: o.openitiRoot,
      outPath: tmp,
      maxSentences: o.count,
      exclude: o.exclude,
      minCharLen: o.minCharLen,
      maxCharLen: o.maxCharLen,
      seed: o.seed,
      statusFilter: 'pri',
      progressMode: 'silent',
    });
    renameSync(tmp, file);
  }
  return loadCorpus(file);
}
