/**
 * Reading one corrections.jsonl of an arm (or of one of its replicates) by dataset, with the guard's fields
 * checked: a malformed line is an error naming the file, line and field.
 */
import { UserInputError } from '../../src/stages/shared/types';
import type { ArmLine } from './arm-types';
import { loadFile, parseCorrection } from './records';

/** `guard` of a corrections record: kept | trimmed | fell_back:<reason>. */
const GUARD_VALUE = /^(kept|trimmed|fell_back:[^\s].*)$/;

/** The lines of one corrections.jsonl by dataset (./records.ts: a repeated sample_id keeps its first line, counted). */
export async function loadCorrections(
  file: string,
  datasets?: readonly string[],
): Promise<{ byDataset: Map<string, ArmLine[]>; duplicates: number; mtimeMs: number }> {
  const keep = datasets && datasets.length > 0 ? new Set(datasets) : null;
  const loaded = await loadFile(file, parseCorrection, (d) => !keep || keep.has(d));
  const byDataset = new Map<string, ArmLine[]>();
  for (const [dataset, lines] of loaded.byDataset) {
    byDataset.set(
      dataset,
      lines.map(({ record, raw, line }) => ({
        record,
        ...guardFields(raw as Record<string, unknown>, `${file}:${line}`),
        ...servedModel(raw as Record<string, unknown>),
      })),
    );
  }
  return { byDataset, duplicates: loaded.duplicates.length, mtimeMs: loaded.mtimeMs };
}

/** The model the server said answered (`served_model`), kept for the tidy table (analysis/tidy/). */
function servedModel(v: Record<string, unknown>): Pick<ArmLine, 'servedModel'> {
  return typeof v.served_model === 'string' ? { servedModel: v.served_model } : {};
}

/** `raw_text` and `guard` of a record (both optional; the guard writes them together). */
function guardFields(v: Record<string, unknown>, where: string): { rawText: string | null; guard: string | null } {
  const raw = v.raw_text;
  const guard = v.guard;
  if (raw !== undefined && raw !== null && typeof raw !== 'string') throw new UserInputError(`${where}: raw_text: expected a string`);
  if (guard !== undefined && guard !== null && (typeof guard !== 'string' || !GUARD_VALUE.test(guard))) {
    throw new UserInputError(`${where}: guard: expected "kept", "trimmed" or "fell_back:<reason>", got ${JSON.stringify(guard)}`);
  }
  return { rawText: (raw as string | null | undefined) ?? null, guard: (guard as string | null | undefined) ?? null };
}
