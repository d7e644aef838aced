/**
 * Was a dataset's source book held out of the retrieval corpus? The report's leakage line states it, so
 * it must agree with what the corpus build did: both compile patterns with the same `globToRegExp`
 * (src/util/glob), the build through `makeExcluder` (src/openiti/metadata).
 */
import { globToRegExp } from '../src/util/glob';

/** The fixed text of a glob (its `*` and `?` removed): the shortest name-like string it stands for. */
const literal = (glob: string) => glob.replace(/[*?]/g, '');

/**
 * Whether a dataset's source book was held out by an `exclude` pattern. Both sides are globs, so they are
 * compared both ways: an exclude pattern matching the source pattern's literal text (`0292Yacqubi*` holds
 * out `0292Yacqubi.Tarikh*`), or the source pattern matching an exclude pattern's literal text (the exact
 * version `0292Yacqubi.Tarikh.Shamela0001234-ara1` is a version of `0292Yacqubi.Tarikh*`).
 */
export function sourceExcluded(exclude: readonly string[], sourcePattern: string | undefined): boolean {
  if (!sourcePattern) return false;
  return exclude.some((ex) => globToRegExp(ex).test(literal(sourcePattern)) || globToRegExp(sourcePattern).test(literal(ex)));
}

/** What the corpus held out for one dataset's source (leakage control), as the arms analysis states it. */
export interface DatasetExclusion {
  dataset: string;
  source_pattern: string | null;
  /**
   * `no_source`: no source_pattern declared, so nothing could be excluded; `nothing_excluded`: the source stays
   * in the corpus; `excluded`: works / versions and/or exclude patterns held it out; `unknown`: exclusion by
   * work was asked for but neither the build record nor the metadata could say what it held out.
   */
  status: 'no_source' | 'nothing_excluded' | 'excluded' | 'unknown';
  /** `phase5.corpus.exclude_dataset_sources` was on (for a corpus from OpenITI). */
  by_work: boolean;
  /** Works (and all their versions) held out by `exclude_dataset_sources`. */
  works: string[];
  versions: string[];
  /** `phase5.corpus.exclude` patterns that hold out the source (the manual, per-version way). */
  exclude_patterns: string[];
}

/** Per dataset in the given order: what was excluded. `byWork` null = exclusion by work off; 'unknown' = on, not known. */
export function datasetExclusions(
  datasets: readonly { dataset: string; source_pattern?: string }[],
  exclude: readonly string[],
  byWork: readonly { dataset: string; works: string[]; versions: string[] }[] | null | 'unknown',
): DatasetExclusion[] {
  return datasets.map(({ dataset, source_pattern }): DatasetExclusion => {
    const base = { dataset, source_pattern: source_pattern ?? null, by_work: byWork !== null, works: [] as string[], versions: [] as string[], exclude_patterns: [] as string[] };
    if (!source_pattern) return { ...base, status: 'no_source' };
    const patterns = exclude.filter((ex) => sourceExcluded([ex], source_pattern));
    const held = Array.isArray(byWork) ? byWork.find((e) => e.dataset === dataset) : undefined;
    const out = { ...base, works: held ? [...held.works] : [], versions: held ? [...held.versions] : [], exclude_patterns: patterns };
    if (out.versions.length > 0 || patterns.length > 0) return { ...out, status: 'excluded' };
    return { ...out, status: byWork === 'unknown' ? 'unknown' : 'nothing_excluded' };
  });
}

/** One line per dataset for the report: `dataset → what was excluded`. */
export function exclusionText(e: DatasetExclusion): string {
  if (e.status === 'no_source') return 'no source declared (no source_pattern) — nothing could be excluded';
  const parts: string[] = [];
  if (e.versions.length > 0) parts.push(`${e.versions.length} version(s) of ${e.works.join(', ')} (by work): ${e.versions.join(', ')}`);
  if (e.exclude_patterns.length > 0) parts.push(`exclude pattern(s) ${e.exclude_patterns.join(', ')}`);
  if (parts.length > 0) return `excluded ${parts.join('; ')}`;
  if (e.status === 'unknown') return `unknown — exclusion by work was on but no build record says what it held out (source ${e.source_pattern})`;
  if (e.by_work) return `nothing excluded — source ${e.source_pattern} matches no work in the OpenITI metadata`;
  return `nothing excluded — source ${e.source_pattern} stays in the corpus`;
}
