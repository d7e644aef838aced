/**
 * Which works a build holds out of the corpus (`phase5.corpus.exclude`): glob patterns (`*` any run, `?`
 * one character, src/util/glob) matched against the whole version URI. The build and the analysis's
 * leakage check both use this rule.
 */
import { globToRegExp } from '../util/glob';

/** Returns the first pattern matching the whole version URI (e.g. `0276IbnQutayba*`), or null. */
export function makeExcluder(patterns: readonly string[]): (versionUri: string) => string | null {
  const compiled = patterns.map((p) => ({ p, re: globToRegExp(p) }));
  return (uri) => {
    for (const { p, re } of compiled) if (re.test(uri)) return p;
    return null;
  };
}

/** Whether any pattern holds the version out: the build's `phase5.corpus.exclude` rule. */
export function isWorkExcluded(versionUri: string, patterns: readonly string[]): boolean {
  return makeExcluder(patterns)(versionUri) !== null;
}
