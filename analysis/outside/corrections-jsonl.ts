/**
 * The project's own corrections.jsonl (docs/outputs.md#correctionsjsonl, src/llm/records.ts) as a system's file
 * for `phase5 score`: one record per line, its `corrected_text` keyed by (`dataset`, `sample_id`). A failed record
 * (`error` set) has no correction: it is scored as the OCR text, counted. A record whose key is not a reference
 * line's is counted by the caller (./outside-arms.ts); a key that repeats is refused, naming both lines.
 */
import { readFileSync } from 'node:fs';
import { readJsonl } from '../../src/io/jsonl';
import { CorrectionRecordSchema, isFailed } from '../../src/llm/records';
import { describeZodError } from '../../src/llm/record-files';
import { UserInputError } from '../../src/stages/shared/types';
import { referenceKey } from './types';

/** What `phase5 score` reads of a corrections record; the other keys may be anything the schema allows. */
const ScoredRecord = CorrectionRecordSchema.pick({ sample_id: true, dataset: true, corrected_text: true, error: true });

/** Whether a JSONL record is a corrections.jsonl one (it has `sample_id`, `dataset` and `corrected_text`). */
export function isCorrectionsRecord(v: unknown): boolean {
  return !!v && typeof v === 'object' && ['sample_id', 'dataset', 'corrected_text'].every((k) => k in (v as object));
}

/** The first non-blank line of a file parsed as JSON, or undefined when it is not JSON (plain text). */
export function firstRecord(file: string): unknown {
  const line = readFileSync(file, 'utf8')
    .split(/\r?\n/u)
    .find((l) => l.trim());
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** A corrections.jsonl's corrected texts by reference key; a failed record is null (the OCR text), counted. */
export async function readCorrectionsSystem(file: string, into: Map<string, string | null>): Promise<{ records: number; failed: number }> {
  const seenAt = new Map<string, number>();
  let records = 0;
  let failed = 0;
  for await (const { value, line } of readJsonl(file)) {
    const parsed = ScoredRecord.safeParse(value);
    if (!parsed.success) throw new UserInputError(`${file}:${line}: not a corrections.jsonl record: ${describeZodError(parsed.error)}`);
    const r = parsed.data;
    const key = referenceKey(r.dataset, r.sample_id);
    const first = seenAt.get(key);
    if (first !== undefined)
      throw new UserInputError(`${file}:${line}: dataset "${r.dataset}" sample_id "${r.sample_id}" repeats line ${first}`);
    seenAt.set(key, line);
    records++;
    const bad = isFailed({ error: r.error ?? null });
    if (bad) failed++;
    into.set(key, bad ? null : r.corrected_text);
  }
  return { records, failed };
}
