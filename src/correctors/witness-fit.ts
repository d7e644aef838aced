/**
 * Fitting an OCR line into a witness text: the part of the witness that *is* the line. Both are compared on
 * witness keys (src/witness/key.ts: NFC, letters only, hamza seats, alef maqsura and taa marbuta unified), so a
 * missing diacritic, a split word or a punctuation mark costs nothing; the OCR key is fitted into the witness key
 * with the project's substring alignment (src/text/substring-distance.ts), and the fitted key span maps back to
 * the witness's own NFC characters, widened to whole words.
 */
import { substringEditDistance } from '../text/distance';
import { keyWithOffsets, witnessKey } from '../witness/key';

export interface WitnessFit {
  /** The witness's own text of the fitted span (NFC, whole words). */
  span: string;
  /** 1 − edits / OCR key length, in [0, 1]; 0 for an OCR line without letters. */
  similarity: number;
}

const SPACE = /\s/u;

/** The witness span that best matches `ocr`, and how well it matches. */
export function fitWitness(ocr: string, witness: string): WitnessFit {
  const q = witnessKey(ocr);
  const { key, from, nfc } = keyWithOffsets(witness);
  if (q.length === 0 || key.length === 0) return { span: '', similarity: 0 };
  const m = substringEditDistance(q, key);
  if (m.end <= m.start) return { span: '', similarity: 0 };
  let s = from[m.start];
  let e = from[m.end - 1] + 1;
  while (s > 0 && !SPACE.test(nfc[s - 1])) s--;
  while (e < nfc.length && !SPACE.test(nfc[e])) e++;
  return { span: nfc.slice(s, e).trim(), similarity: Math.max(0, 1 - m.distance / q.length) };
}
