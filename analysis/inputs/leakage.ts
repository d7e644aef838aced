/**
 * Was a dataset's source book held out of the retrieval corpus, and which retrieved sentences come from it? The
 * report's leakage line and the Arms section state it with the build's own rule (src/openiti/work-exclusion.ts):
 * the same effective exclude patterns, the same matcher, and a source counts as excluded only when every
 * version of its work is held out.
 */
import type { MetadataRow } from '../../src/openiti/metadata';
import {
  effectiveExcludePatterns,
  patternsHoldingSource,
  sourceExclusionStatus,
  sourceWorkMatcher,
  type SourceExclusionStatus,
} from '../../src/openiti/work-exclusion';
import { globToRegExp } from '../../src/util/glob';

/** The build's exclusion as the analysis knows it: config patterns, what exclusion by work held out, the metadata. */
export interface ExclusionRule {
  exclude: readonly string[];
  /** `<work>.*` patterns of exclusion by work (the build record's `excludedSources`); null when off. */
  held: ReadonlyArray<{ patterns: readonly string[] }> | null;
  /** The metadata's versions; null when they could not be read. */
  rows: ReadonlyArray<Pick<MetadataRow, 'versionUri' | 'bookUri'>> | null;
}

/** Where a dataset's source stands under the build's rule; null without a source pattern. */
export function sourceStatus(sourcePattern: string | undefined, rule: ExclusionRule): SourceExclusionStatus | null {
  if (!sourcePattern) return null;
  return sourceExclusionStatus(sourcePattern, effectiveExcludePatterns(rule.exclude, rule.held), rule.rows);
}

/** The report's test of a retrieved URI: it belongs to one of the source's works (or the pattern matches it); null without a source. */
export function sourceHitMatcher(info: { sourcePattern?: string; sourceWorks?: string[] } | undefined): ((uri: string) => boolean) | null {
  return info?.sourcePattern ? sourceWorkMatcher(info.sourcePattern, info.sourceWorks ?? []) : null;
}

/** True when the build holds out every version of the source's works (the report's "source excluded"). */
export function sourceExcluded(sourcePattern: string | undefined, rule: ExclusionRule): boolean {
  return sourceStatus(sourcePattern, rule)?.status === 'excluded';
}

/** What the corpus held out for one dataset's source (leakage control), as the arms analysis states it. */
export interface DatasetExclusion {
  dataset: string;
  source_pattern: string | null;
  /**
   * `no_source`: no source_pattern declared, so nothing could be excluded; `nothing_excluded`: the source stays
   * in the corpus; `excluded`: every version of its works is held out (by work and/or exclude patterns);
   * `partly_excluded`: some versions are held out while others of the same work stay; `unknown`: exclusion by
   * work was asked for but neither the build record nor the metadata could say what it held out.
   */
  status: 'no_source' | 'nothing_excluded' | 'excluded' | 'partly_excluded' | 'unknown';
  /** `corpus.exclude_dataset_sources` was on (for a corpus from OpenITI). */
  by_work: boolean;
  /** Works (and all their versions) held out by `exclude_dataset_sources`. */
  works: string[];
  versions: string[];
  /** `corpus.exclude` patterns that hold out the source (the manual, per-version way). */
  exclude_patterns: string[];
}

/**
 * Per dataset in the given order: what was excluded. `byWork` null = exclusion by work off; 'unknown' = on, not
 * known. `rows`: the metadata's versions, when read (without them a source counts as excluded only when a
 * pattern holds out every version of its work).
 */
export function datasetExclusions(
  datasets: readonly { dataset: string; source_pattern?: string }[],
  exclude: readonly string[],
  byWork: readonly { dataset: string; works: string[]; versions: string[] }[] | null | 'unknown',
  rows: ExclusionRule['rows'] = null,
): DatasetExclusion[] {
  // Exclusion by work holds out `<work>.*` of every work it lists (src/openiti/source-works.ts).
  const held = Array.isArray(byWork) ? byWork.map((e) => ({ patterns: e.works.map((w: string) => `${w}.*`) })) : null;
  return datasets.map(({ dataset, source_pattern }): DatasetExclusion => {
    const base = {
      dataset,
      source_pattern: source_pattern ?? null,
      by_work: byWork !== null,
      works: [] as string[],
      versions: [] as string[],
      exclude_patterns: [] as string[],
    };
    if (!source_pattern) return { ...base, status: 'no_source' };
    const st = sourceStatus(source_pattern, { exclude, held, rows })!;
    const patterns = patternsHoldingSource(exclude, st);
    const mine = Array.isArray(byWork) ? byWork.find((e) => e.dataset === dataset) : undefined;
    const out = { ...base, works: mine ? [...mine.works] : [], versions: mine ? [...mine.versions] : [], exclude_patterns: patterns };
    if (st.status === 'excluded' || (mine && mine.versions.length > 0)) return { ...out, status: 'excluded' };
    if (st.status === 'partly_excluded') return { ...out, status: 'partly_excluded' };
    return { ...out, status: byWork === 'unknown' ? 'unknown' : 'nothing_excluded' };
  });
}

/** One line per dataset for the report: `dataset → what was excluded`. */
export function exclusionText(e: DatasetExclusion): string {
  if (e.status === 'no_source') return 'no source declared (no source_pattern) — nothing could be excluded';
  const parts: string[] = [];
  if (e.versions.length > 0) parts.push(`${e.versions.length} version(s) of ${e.works.join(', ')} (by work): ${e.versions.join(', ')}`);
  if (e.exclude_patterns.length > 0) parts.push(`exclude pattern(s) ${e.exclude_patterns.join(', ')}`);
  if (parts.length > 0 && e.status === 'partly_excluded')
    return `PARTLY excluded ${parts.join('; ')} — other versions of the work stay in the corpus`;
  if (parts.length > 0) return `excluded ${parts.join('; ')}`;
  if (e.status === 'unknown')
    return `unknown — exclusion by work was on but no build record says what it held out (source ${e.source_pattern})`;
  if (e.by_work) return `nothing excluded — source ${e.source_pattern} matches no work in the OpenITI metadata`;
  return `nothing excluded — source ${e.source_pattern} stays in the corpus`;
}

/** Source patterns (config `source_pattern`: a version-URI glob such as "0276IbnQutayba.Adab*"). */
export { globToRegExp };

/**
 * Does a retrieved source URI come from the book a pattern names? The glob is tried on the whole URI
 * and on each path segment, so "0276IbnQutayba.Adab*" matches a bare version URI as well as
 * "data/0276IbnQutayba/0276IbnQutayba.Adab/0276IbnQutayba.Adab.Shamela0001-ara1".
 */
export function sourceMatcher(pattern: string): (uri: string) => boolean {
  const re = globToRegExp(pattern);
  return (uri: string) => {
    if (re.test(uri)) return true;
    for (const seg of uri.split(/[\\/]/)) if (seg && re.test(seg)) return true;
    return false;
  };
}
