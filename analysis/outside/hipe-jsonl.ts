/**
 * HIPE-OCRepair JSONL, as the 2026 shared task publishes it (github.com/hipe-eval/HIPE-OCRepair-2026-eval, `data/`;
 * schema hipe_ocrepair_scorer/data/schema/hipe-ocrepair.schema.json in github.com/hipe-eval/HIPE-OCRepair-scorer):
 * one document per line, `document_metadata.document_id`, `.primary_dataset_name`, `.language`,
 * `ground_truth.transcription_unit` (+ `exclude_from_icdar_evaluation`), `ocr_hypothesis.transcription_unit`,
 * and in a submission `ocr_postcorrection_output.transcription_unit`. The dataset key is
 * `<primary_dataset_name>_<language>`. The rules are the task's scorer's (lib/score_one.py, ocrepair_eval.py
 * `align_records`): an output that is missing, null, "None" or empty is the OCR text; a reference document a
 * submission lacks scores as an empty output; a flagged reference document is left out. Each is counted.
 */
import { readJsonl } from '../../src/io/jsonl';
import { UserInputError } from '../../src/stages/shared/types';
import { referenceKey, type ReadNotes, type ReferenceLine } from './types';

type Doc = Record<string, unknown>;

const field = (o: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Doc)[k] : undefined), o);

function text(file: string, line: number, doc: unknown, ...keys: string[]): string {
  const v = field(doc, ...keys);
  if (typeof v !== 'string')
    throw new UserInputError(
      `${file}:${line}: ${keys.join('.')}: expected a string, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`,
    );
  return v;
}

/** The dataset key and document id of one HIPE-OCRepair record. */
function keyOf(file: string, line: number, doc: unknown): { dataset: string; id: string } {
  const name = text(file, line, doc, 'document_metadata', 'primary_dataset_name');
  const lang = field(doc, 'document_metadata', 'language');
  return {
    dataset: typeof lang === 'string' && lang ? `${name}_${lang}` : name,
    id: text(file, line, doc, 'document_metadata', 'document_id'),
  };
}

/** Reference documents of one or more files, in file order; flagged ones counted in `notes.excluded`. */
export async function readHipeReferences(files: readonly string[], notes: ReadNotes): Promise<ReferenceLine[]> {
  const out: ReferenceLine[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    for await (const { value, line } of readJsonl(file)) {
      const { dataset, id } = keyOf(file, line, value);
      if (field(value, 'ground_truth', 'exclude_from_icdar_evaluation') === true) {
        notes.excluded++;
        (notes.excludedKeys ??= new Set()).add(referenceKey(dataset, id));
        continue;
      }
      const key = referenceKey(dataset, id);
      if (seen.has(key)) throw new UserInputError(`${file}:${line}: document_id "${id}" appears twice in the references`);
      seen.add(key);
      out.push({
        dataset,
        sample_id: id,
        gt_text: text(file, line, value, 'ground_truth', 'transcription_unit'),
        ocr_text: text(file, line, value, 'ocr_hypothesis', 'transcription_unit'),
      });
    }
  }
  return out;
}

/** A submission's outputs by reference key; a missing/"None"/empty output is null: the OCR text (counted). */
export async function readHipeSystem(file: string, into: Map<string, string | null>): Promise<{ imputed: number }> {
  let imputed = 0;
  for await (const { value, line } of readJsonl(file)) {
    const { dataset, id } = keyOf(file, line, value);
    const out = field(value, 'ocr_postcorrection_output', 'transcription_unit');
    if (out === undefined || out === null || out === 'None' || out === '') {
      into.set(referenceKey(dataset, id), null);
      imputed++;
    } else if (typeof out !== 'string')
      throw new UserInputError(
        `${file}:${line}: ocr_postcorrection_output.transcription_unit: expected a string, got ${JSON.stringify(out)}`,
      );
    else into.set(referenceKey(dataset, id), out);
  }
  return { imputed };
}

/** Whether a JSONL record is HIPE-OCRepair's (it has `document_metadata`). */
export const isHipeRecord = (v: unknown): boolean => field(v, 'document_metadata') !== undefined;
