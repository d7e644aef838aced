/**
 * The one glob dialect of the project, for OpenITI version URIs such as
 * `0292Yacqubi.Tarikh.Shamela0001234-ara1`: the corpus `exclude` patterns, the datasets' `source_pattern`,
 * the golden-set book patterns and the report's leakage check all compile through `globToRegExp`.
 */

/**
 * Glob → RegExp anchored at both ends: `*` any run (also empty), `?` exactly one character (a code point,
 * so an astral character counts once), everything else literal and case-sensitive (`.` is a dot, so
 * `0292Yacqubi.Tarikh*` does not match `0292YacqubiXTarikh`). There are no classes, braces or escapes.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (const ch of glob) {
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else re += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}
