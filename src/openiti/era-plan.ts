/** How a build's sentences are shared out: per era (with shortfalls moved on), then author by author, file by file. */
import type { Logger } from '../util/log';
import type { ResolvedOptions } from './build-options';
import { cmp, type FileEntry } from './file-selection';
import { seededKey, waterFill, type EraAllocation, type EraSpec } from './sampling';

/** Eligible sentences per era (after maxPerFile). */
export function eraCapacities(eras: readonly EraSpec[], parsedEntries: readonly FileEntry[]): number[] {
  return eras.map((_, i) => parsedEntries.filter((e) => e.era === i).reduce((a, e) => a + e.capacity, 0));
}

export function warnEraShortfall(log: Logger, eras: readonly EraSpec[], eraAlloc: EraAllocation, eraCaps: readonly number[]): void {
  if (!eraAlloc.shortfall.some((s) => s > 0)) return;
  log.warn(
    {
      eras: eras.map((e, i) => ({
        era: e.name,
        target: eraAlloc.targets[i],
        capacity: eraCaps[i],
        shortfall: eraAlloc.shortfall[i],
        received: eraAlloc.received[i],
      })),
      unfilled: eraAlloc.unfilled,
    },
    'openiti: some eras have fewer sentences than their target; the shortfall was redistributed',
  );
}

export interface EraPlan {
  era: EraSpec;
  /** The era's parsed files in output order, each with its `alloc`. */
  files: FileEntry[];
  authors: number;
  written: number;
}

/** Splits each era's allocation over its authors, then each author's over their files (sets `alloc`). */
export function planEras(o: ResolvedOptions, parsedEntries: readonly FileEntry[], allocated: readonly number[]): EraPlan[] {
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
    const fa = waterFill(
      fs.map((f) => f.capacity),
      authorAlloc[k],
      fs.map((f) => seededKey(seed, f.uri)),
    );
    fs.forEach((f, j) => (f.alloc = fa[j]));
  });
  return authorList.length;
}
