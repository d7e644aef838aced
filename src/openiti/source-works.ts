/**
 * Leakage control by work (`corpus.exclude_dataset_sources`): OpenITI often holds several versions of one
 * work (`NNNNAuthor.Title.VersionId`), so holding out the one version a dataset was transcribed from leaves the
 * others in the corpus. Here a dataset's `source_pattern` is resolved against the metadata to the works it names
 * (the book URI `NNNNAuthor.Title` of every version it matches, or the work it matches itself), and every version
 * of those works is excluded — by exact work patterns `<work>.*`, which match no other work.
 */
import { globToRegExp } from '../util/glob';
import type { MetadataRow } from './metadata';

export interface SourceWorkExclusion {
  dataset: string;
  source_pattern: string;
  /** Work URIs the pattern names (empty: it matched nothing in the metadata — nothing excluded for it). */
  works: string[];
  /** Every version of those works in the metadata, excluded from the corpus. */
  versions: string[];
  /** The exclude patterns added: `<work>.*`. */
  patterns: string[];
}

/** Per dataset with a source pattern: the works and versions held out. */
export function sourceWorkExclusions(
  datasets: readonly { dataset: string; source_pattern?: string }[],
  rows: readonly Pick<MetadataRow, 'versionUri' | 'bookUri'>[],
): SourceWorkExclusion[] {
  const out: SourceWorkExclusion[] = [];
  for (const { dataset, source_pattern } of datasets) {
    if (!source_pattern) continue;
    const re = globToRegExp(source_pattern);
    const works = [...new Set(rows.filter((r) => re.test(r.versionUri) || re.test(r.bookUri)).map((r) => r.bookUri))].sort();
    const wanted = new Set(works);
    const versions = rows
      .filter((r) => wanted.has(r.bookUri))
      .map((r) => r.versionUri)
      .sort();
    out.push({ dataset, source_pattern, works, versions, patterns: works.map((w) => `${w}.*`) });
  }
  return out;
}
