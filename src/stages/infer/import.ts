/**
 * `phase5 infer --import FILE [--arm NAME]`: corrections made elsewhere, validated line by line and written where
 * the analysis reads the arm (default rag), guarded like the runner's lines when the arm's guard is on.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic, writeJsonlAtomicAsync } from '../../io/jsonl';
import { summarizeValidation, validateCorrectionsFile } from '../../llm/index';
import { applyGuard, type GuardSettings } from '../../llm/guard';
import { isFailed, type CorrectionRecord } from '../../llm/records';
import { childLogger } from '../../util/log';
import type { ArmRun } from '../study/arms';
import { importFix, importHooks, readExportLines } from './import-match';
import type { InferOptions } from './types';
import { armJson } from '../study/arm-files';
import { UserInputError } from '../shared/types';
import { writtenFile, type WrittenFile } from '../shared/written-file';

const log = childLogger('infer');

export interface ImportResult {
  imported: number;
  failed: number;
  byDataset: Record<string, number>;
  output: string;
  /** The corrections file and the sha256 of what the import wrote (an attach checks it; ../shared/written-file.ts). */
  outputFile: WrittenFile;
  /** With the arm's guard on: the decisions taken on the imported lines that carried none (`kept`, `trimmed`, `fell_back:<reason>`). */
  guard?: Record<string, number>;
  /** What the import decided on its own (fields set from the arm's prompt, no export to match against). */
  notes?: string[];
}

/**
 * Validate every line of `importFile`, then write it where analyze reads the import's arm (default rag). With the
 * arm's guard on, lines that carry no guard decision go through trimming and the guard like the runner's lines
 * (from `raw_output`, kept as `raw_text`), so an imported arm is scored like one inferred here. A study arm
 * imported before its export gets its arm.json now, so the analysis finds it.
 */
export async function importCorrections(options: InferOptions): Promise<ImportResult> {
  const file = options.importFile;
  if (!file) throw new UserInputError('no file to import (--import FILE)');
  if (!existsSync(file)) throw new UserInputError(`import file not found: ${file}`);
  const arm = options.importArm;
  if (!arm) throw new UserInputError('no arm to import into (--arm NAME)');
  const exported = await readExportLines(arm.input);
  const v = await validateCorrectionsFile(file, importHooks(arm, exported));
  if (!v.ok) throw new UserInputError(`import rejected — ${summarizeValidation(v, importFix)}`);
  const notes = importNotes(v.filled, arm, exported !== null);
  for (const note of notes) log.warn(`import: ${note}`);
  const guarded = guardImported(v.records, arm.guard);
  await writeJsonlAtomicAsync(arm.output, guarded.records); // canonical key order; unknown keys dropped
  if (v.extraKeys.length) log.warn({ extraKeys: v.extraKeys }, 'import: keys outside the schema were dropped');
  writeMissingArmJson(arm);
  return {
    imported: v.records.length,
    failed: v.failed,
    byDataset: v.byDataset,
    output: arm.output,
    outputFile: await writtenFile(arm.output),
    ...(guarded.decisions ? { guard: guarded.decisions } : {}),
    ...(notes.length ? { notes } : {}),
  };
}

/** What the import did on its own: prompt fields set from the arm, lines not checked against an export. */
function importNotes(filled: Record<string, number>, arm: ArmRun, checked: boolean): string[] {
  const notes: string[] = [];
  const fields = Object.keys(filled);
  if (fields.length) {
    const n = Math.max(...Object.values(filled));
    notes.push(`${n.toLocaleString('en-US')} line(s) had no ${fields.join(' / ')}: set from arm ${arm.name}'s prompt (${arm.prompt})`);
  }
  if (!checked) notes.push(`arm ${arm.name} has no export yet (${arm.input}): the lines were not matched against it`);
  return notes;
}

/** Trim + guard the imported lines that carry no decision (failed lines stay as they are); null decisions with the guard off. */
export function guardImported(
  records: CorrectionRecord[],
  guard: GuardSettings | undefined,
): { records: CorrectionRecord[]; decisions: Record<string, number> | null } {
  if (!guard?.enabled) return { records, decisions: null };
  const decisions: Record<string, number> = {};
  const out = records.map((r) => {
    if (r.guard !== undefined || isFailed(r)) return r;
    const raw = r.raw_output;
    const g = applyGuard(raw, r.ocr_text, guard);
    decisions[g.guard] = (decisions[g.guard] ?? 0) + 1;
    return { ...r, corrected_text: g.corrected_text, raw_text: raw, guard: g.guard };
  });
  return { records: out, decisions };
}

/** A study arm's arm.json, when the import comes before the arm's export wrote one (the default arms have none). */
function writeMissingArmJson(arm: ArmRun): void {
  if (!arm.dir || existsSync(path.join(arm.dir, 'arm.json'))) return;
  mkdirSync(arm.dir, { recursive: true });
  writeJsonAtomic(path.join(arm.dir, 'arm.json'), armJson(arm, undefined));
}
