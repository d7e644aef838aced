/** Lines a machine wrote, as the output tests look for them. */

/** A line that parses as JSON of object type (a pino record, a one-line result document, an array). */
export function isJsonObjectLine(line: string): boolean {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
}
