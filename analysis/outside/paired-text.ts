/**
 * Plain paired text for `phase5 score --gold G --ocr O --system NAME=FILE`: line i of every file is one unit; the
 * dataset key is the gold file's name without its extension, the sample id the line number. Files of different
 * lengths are refused, naming both.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UserInputError } from '../../src/stages/shared/types';
import { referenceKey, type ReferenceLine } from './types';

function linesOf(file: string): string[] {
  const t = readFileSync(file, 'utf8');
  const lines = t.split(/\r?\n/u);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export function readPairedReferences(gold: string, ocr: string): ReferenceLine[] {
  const g = linesOf(gold);
  const o = linesOf(ocr);
  if (g.length !== o.length)
    throw new UserInputError(`${ocr}: ${o.length} lines, but ${gold} has ${g.length}; paired text needs one line per line`);
  const dataset = path.basename(gold).replace(/\.[^.]*$/u, '');
  return g.map((gt, i) => ({ dataset, sample_id: String(i + 1), gt_text: gt, ocr_text: o[i] }));
}

/** A system's lines, keyed like the references (line i ↔ reference line i). */
export function readPairedSystem(file: string, refs: readonly ReferenceLine[], into: Map<string, string | null>): void {
  const lines = linesOf(file);
  if (lines.length !== refs.length) throw new UserInputError(`${file}: ${lines.length} lines, but the gold file has ${refs.length}`);
  refs.forEach((r, i) => into.set(referenceKey(r.dataset, r.sample_id), lines[i]));
}
