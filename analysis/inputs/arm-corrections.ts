/**
 * Reading one corrections.jsonl of an arm (or of one of its replicates) by dataset, with the guard's fields
 * checked: a malformed line is an error naming the file, line and field.
 */
import { statSync } from 'node:fs';
import { readJsonl } from '../../src/io/jsonl';
import { UserInputError } from '../../src/stages/types';
import type { ArmLine } from './arm-inputs';
import { parseCorrection } from './condition-inputs';

/** `guard` of a corrections record: kept | trimmed | fell_back:<reason>. */
const GUARD_VALUE = /^(kept|trimmed|fell_back:[^\s].*)$/;

/** The lines of one corrections.jsonl by dataset (a repeated sample_id keeps its first line, counted). */
export async function loadCorrections(
  file: string,
  datasets?: readonly string[],
): Promise<{ byDataset: Map<string, ArmLine[]>; duplicates: number; mtimeMs: number }> {
  const keep = datasets && datasets.length > 0 ? new Set(datasets) : null;
  const byDataset = new Map<string, ArmLine[]>();
  const seen = new Set<string>();
  let duplicates = 0;
  for await (const { value, line } of readJsonl(file)) {
    const p = parseCorrection(value);
    if (!p.ok) throw new UserInputError(`${file}:${line}: ${p.error}`);
    const rec = p.value;
    if (keep && !keep.has(rec.dataset)) continue;
    const key = `${rec.dataset}\u0000${rec.sample_id}`;
    if (seen.has(key)) {
      duplicates++;
      continue;
    }
    seen.add(key);
    let list = byDataset.get(rec.dataset);
    if (!list) byDataset.set(rec.dataset, (list = []));
    list.push({
      record: rec,
      ...guardFields(value as Record<string, unknown>, `${file}:${line}`),
      ...servedModel(value as Record<string, unknown>),
    });
  }
  return { byDataset, duplicates, mtimeMs: statSync(file).mtimeMs };
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
