/**
 * One `--system NAME=FILE` of `phase5 score`, its format told by its content — the keys of its first line: a
 * corrections.jsonl record (`sample_id`, `dataset`, `corrected_text`: ./corrections-jsonl.ts), a HIPE-OCRepair
 * document (`document_metadata`: ./hipe-jsonl.ts), else, with paired-text references, plain text (./paired-text.ts).
 */
import { UserInputError } from '../../src/stages/shared/types';
import { firstRecord, isCorrectionsRecord, readCorrectionsSystem } from './corrections-jsonl';
import { isHipeRecord, readHipeSystem } from './hipe-jsonl';
import { readPairedSystem } from './paired-text';
import type { ReferenceLine, SystemOutput } from './types';

export type SystemFormat = 'corrections' | 'hipe' | 'paired';

export function systemFormat(file: string, hipeReferences: boolean): SystemFormat {
  const first = firstRecord(file);
  if (isCorrectionsRecord(first)) return 'corrections';
  if (isHipeRecord(first)) return 'hipe';
  if (!hipeReferences) return 'paired';
  const keys = first && typeof first === 'object' ? Object.keys(first).join(', ') : 'not a JSON object';
  throw new UserInputError(
    `${file}:1: neither a HIPE-OCRepair document (document_metadata) nor a corrections.jsonl record (sample_id, dataset, corrected_text): ${keys}`,
  );
}

/** Read one file of a system into `s` (its outputs and counts). */
export async function readSystemFile(
  file: string,
  s: SystemOutput,
  refs: readonly ReferenceLine[],
  hipeReferences: boolean,
): Promise<void> {
  const format = systemFormat(file, hipeReferences);
  if (format === 'corrections') s.failed = (s.failed ?? 0) + (await readCorrectionsSystem(file, s.outputs)).failed;
  else if (format === 'hipe') s.imputed += (await readHipeSystem(file, s.outputs)).imputed;
  else readPairedSystem(file, refs, s.outputs);
}
