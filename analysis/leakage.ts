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
