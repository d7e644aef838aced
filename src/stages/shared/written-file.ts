/**
 * A file a stage wrote, as its result names it: the path and the sha256 of the bytes it wrote. A command that
 * attaches to a finished run hashes every one again before it shows the result (bin/cli/finished-files.ts,
 * docs/cluster-files.md#attaching-to-a-finished-run), so a file replaced since is noticed, never shown as the
 * run's.
 */
import { existsSync } from 'node:fs';
import { sha256File } from '../../util/hash';

export interface WrittenFile {
  path: string;
  sha256: string;
}

/** The file at `path` as it is now (just written). */
export async function writtenFile(path: string): Promise<WrittenFile> {
  return { path, sha256: await sha256File(path) };
}

/** Each of `paths` that exists, in order, without repeats (an analysis names what it wrote; a file it removed is left out). */
export async function writtenFiles(paths: Iterable<string>): Promise<WrittenFile[]> {
  const out: WrittenFile[] = [];
  for (const p of new Set(paths)) if (existsSync(p)) out.push(await writtenFile(p));
  return out;
}
