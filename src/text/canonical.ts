/**
 * The canonical form of a text: the one preparation every comparison of text in the project goes through
 * (CER / WER and their alignment, error classes, the guard's ratios, verbatim-gold, trimming, the
 * normalisation profiles of ./profiles). Two texts that a reader cannot tell apart compare equal:
 *   1. Unicode NFC (canonical composition): alef + U+0654 HAMZA ABOVE becomes أ, waw + U+0654 becomes ؤ, and so
 *      on (docs/scoring.md#canonical-form); OCR and gold files often hold the decomposed form, OpenITI and model
 *      output the composed one;
 *   2. trimmed, and (by default) every whitespace run collapsed to one space. With `collapseWhitespace = false`
 *      only the ends are trimmed, which reproduces the raw OCR_GS figures in the data README (a few OCR lines
 *      carry double spaces that then count as insertions).
 */

const WHITESPACE_RUN = /\s+/gu;

/** NFC, trimmed, whitespace runs collapsed to one space unless told not to. Idempotent. */
export function canonical(text: string, collapseWhitespace = true): string {
  const t = text.normalize('NFC').trim();
  return collapseWhitespace ? t.replace(WHITESPACE_RUN, ' ') : t;
}

/** What `canonical` does, in words (the `text_preparation` line of the analysis documents). */
export function canonicalDescription(collapseWhitespace = true): string {
  return collapseWhitespace ? 'Unicode NFC; trimmed; whitespace runs collapsed to one space' : 'Unicode NFC; trimmed only';
}
