/**
 * What the bytes cleaners (clean-line-bytes.ts, clean-marked-bytes.ts) share: their verdicts and the
 * byte tests for ASCII spacing and the digits of a trailing verse number, on valid UTF-8.
 */

/** Verdicts of cleanLineBytes. */
export const SKIP = 0; // structural or empty: what cleanLine returns null for
export const FAST = 1; // clean text = lineFacts.bytes[byteStart, byteEnd), facts set as by cleanLine
export const GENERAL = 2; // anything else: decode the line and use cleanLine

export function isAsciiSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

export function isAsciiDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

/** The digit U+0660–0669 or U+06F0–06F9 encoded as b[i - 1], b[i]? */
export function isIndicDigitEndingAt(b: Uint8Array, i: number): boolean {
  const c = b[i];
  return (b[i - 1] === 0xd9 && c >= 0xa0 && c <= 0xa9) || (b[i - 1] === 0xdb && c >= 0xb0 && c <= 0xb9);
}

/** trailingNumberEnd on UTF-8 bytes, for ASCII spaces (other spaces make the line GENERAL anyway). */
export function trailingNumberEndBytes(b: Uint8Array, start: number, end: number): number {
  let i = end - 1;
  while (i >= start && isAsciiSpace(b[i])) i--;
  const lastDigit = i;
  for (;;) {
    if (i >= start && isAsciiDigit(b[i])) i--;
    else if (i > start && isIndicDigitEndingAt(b, i)) i -= 2;
    else break;
  }
  if (i === lastDigit || i < start || !isAsciiSpace(b[i])) return end;
  while (i >= start && isAsciiSpace(b[i])) i--;
  return i + 1;
}
