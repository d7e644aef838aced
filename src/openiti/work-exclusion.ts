/**
 * The corpus build's exclusion rule, in one place for the build and for the analysis that reports it
 * (docs/corpus.md#leakage-control-by-work):
 *   - the effective exclude patterns are `corpus.exclude` plus, with `exclude_dataset_sources`, `<work>.*`
 *     for every work a dataset's source names (./source-works);
 *   - a version URI is left out when one of them matches the whole URI (`makeExcluder`, the project's one glob
 *     dialect, src/util/glob);
 *   - a source is excluded only when every version of every work it names is left out: one version held out
 *     while others of the same work stay is "partly excluded", and the corpus still holds the source's text;
 *   - a retrieved sentence comes from the source when its version belongs to one of those works.
 * A source pattern names the works of the metadata rows it matches (by version or by work URI), as
 * `sourceWorkExclusions` resolves it; without metadata rows, the works of the URIs it matches and, for a pattern
 * without wildcards, the work of the pattern itself.
 */
import type { MetadataRow } from './metadata';
import { globToRegExp } from '../util/glob';

/** The first pattern matching the whole version URI (e.g. `0276IbnQutayba*`), or null: the build's test. */
export function makeExcluder(patterns: readonly string[]): (versionUri: string) => string | null {
  const compiled = patterns.map((p) => ({ p, re: globToRegExp(p) }));
  return (uri) => {
    for (const { p, re } of compiled) if (re.test(uri)) return p;
    return null;
  };
}

/** Whether any pattern holds the version out: the build's `corpus.exclude` rule. */
export function isWorkExcluded(versionUri: string, patterns: readonly string[]): boolean {
  return makeExcluder(patterns)(versionUri) !== null;
}

/** The work URI (`NNNNAuthor.Title`) of a version URI, also of a path ending in one (`data/…/<version>`). */
export function workOf(uri: string): string {
  const last = uri.split(/[\\/]/).filter(Boolean).pop() ?? uri;
  const parts = last.split('.');
  return parts.length >= 2 ? `${parts[0]}.${parts[1]}` : last;
}

/** The patterns the build excludes with: the config's, then the by-work ones (`<work>.*`). */
export function effectiveExcludePatterns(
  exclude: readonly string[],
  held: ReadonlyArray<{ patterns: readonly string[] }> | null | undefined,
): string[] {
  return [...exclude, ...(held ?? []).flatMap((e) => e.patterns)];
}

/** The build's test of one version URI: the first effective pattern matching it, or null (the version stays). */
export function corpusExcluder(patterns: readonly string[]): (versionUri: string) => string | null {
  return makeExcluder(patterns);
}

export type SourceStatus = 'excluded' | 'partly_excluded' | 'not_excluded' | 'unknown';

export interface SourceExclusionStatus {
  /** Works the source pattern names. */
  works: string[];
  /** Every known version of those works, and the ones the build leaves out. */
  versions: string[];
  excluded_versions: string[];
  /** `unknown`: no version of the source's works is known (no metadata and no version named). */
  status: SourceStatus;
  /** True when a URI (a version or a path ending in one) belongs to one of the source's works. */
  fromSourceWork: (uri: string) => boolean;
}

const hasWildcard = (p: string) => /[*?]/u.test(p);

/** A version name no real OpenITI version has: a pattern matching it after `<work>.` holds out every version of the work. */
const PROBE_VERSION = '\u{10FFFF}probe.\u0001-\u0002';

/**
 * Where a dataset's source stands under the build's rule. `rows`: the metadata's versions (null when unread:
 * then only a source pattern without wildcards names a work, and the other versions of that work count as
 * held out only when a pattern holds out every version of it); `patterns`: the effective exclude patterns.
 */
export function sourceExclusionStatus(
  sourcePattern: string,
  patterns: readonly string[],
  rows: ReadonlyArray<Pick<MetadataRow, 'versionUri' | 'bookUri'>> | null,
): SourceExclusionStatus {
  const re = globToRegExp(sourcePattern);
  const excluder = corpusExcluder(patterns);
  const works = new Set<string>();
  let versions: string[] = [];
  if (rows) {
    for (const r of rows) if (re.test(r.versionUri) || re.test(r.bookUri)) works.add(r.bookUri);
    versions = rows
      .filter((r) => works.has(r.bookUri))
      .map((r) => r.versionUri)
      .sort();
  } else if (!hasWildcard(sourcePattern)) {
    works.add(workOf(sourcePattern));
    if (sourcePattern !== workOf(sourcePattern)) versions = [sourcePattern];
  }
  const excludedVersions = versions.filter((v) => excluder(v) !== null);
  const wholeWorks = works.size > 0 && [...works].every((w) => excluder(`${w}.${PROBE_VERSION}`) !== null);
  let status: SourceStatus;
  if (works.size === 0) status = rows ? 'not_excluded' : 'unknown';
  else if (wholeWorks || (rows && excludedVersions.length === versions.length && versions.length > 0)) status = 'excluded';
  else status = excludedVersions.length > 0 ? 'partly_excluded' : 'not_excluded';
  return {
    works: [...works].sort(),
    versions,
    excluded_versions: excludedVersions,
    status,
    fromSourceWork: sourceWorkMatcher(sourcePattern, works),
  };
}

/**
 * A retrieved URI (a version, or a path ending in one) comes from the source when it belongs to one of the
 * source's works, or when the source pattern matches it (the URI itself or its last path segment).
 */
export function sourceWorkMatcher(sourcePattern: string, works: Iterable<string>): (uri: string) => boolean {
  const re = globToRegExp(sourcePattern);
  const set = new Set(works);
  return (uri) => {
    const last = uri.split(/[\\/]/).filter(Boolean).pop() ?? uri;
    return set.has(workOf(uri)) || re.test(uri) || re.test(last);
  };
}

/** The patterns that hold out at least one version of the source's works (a known version, or any of them). */
export function patternsHoldingSource(patterns: readonly string[], st: Pick<SourceExclusionStatus, 'versions' | 'works'>): string[] {
  return patterns.filter((p) => {
    const m = corpusExcluder([p]);
    return st.versions.some((v) => m(v) !== null) || st.works.some((w) => m(`${w}.${PROBE_VERSION}`) !== null);
  });
}
