/**
 * Whole record files read and validated line by line: a corrections.jsonl produced elsewhere (every bad line
 * listed with its number, never a throw) and inference_input.jsonl (the first bad line throws with file:line).
 */
import type { z } from 'zod';
import { JsonlParseError, readJsonl } from '../io/jsonl';
import { summarizeLineProblems } from '../util/line-problems';
import {
  ANSWER_KEYS,
  CORRECTION_KEYS,
  CorrectionRecordSchema,
  GUARD_KEYS,
  InferenceInputSchema,
  isFailed,
  toCorrectionRecord,
  type CorrectionRecord,
  type InferenceInputRow,
} from './records';

/** "field: message; field2: message" from a zod error — names every bad field. */
export function describeZodError(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length ? i.path.join('.') : '(record)'}: ${i.message}`).join('; ');
}

export interface LineProblem {
  line: number;
  message: string;
  /** The same words for every line with this problem (`lack model`), for a grouped summary (src/util/line-problems.ts). */
  kind?: string;
  /** This line's particulars (`"s12" (first at line 3)`). */
  detail?: string;
}

/** What `validateCorrectionsFile` does beside the schema: fill fields a line lacks, check a record against more than the file. */
export interface ValidateHooks {
  /** Set fields the parsed line lacks (e.g. prompt_type from the arm); returns the names it set. */
  fill?(value: Record<string, unknown>): string[];
  /** A problem of a schema-valid record (e.g. not in the arm's export), or null. */
  check?(record: CorrectionRecord): Omit<LineProblem, 'line'> | null;
}

/** A schema error as a kind shared by every line with it: missing fields → `lack a and b`, others → `have a bad <field>`. */
export function zodProblemKind(err: z.ZodError): { kind: string; detail: string } {
  const missing = err.issues.filter((i) => /received undefined/.test(i.message)).map((i) => i.path.join('.') || '(record)');
  const other = err.issues.filter((i) => !/received undefined/.test(i.message));
  const parts = [
    ...(missing.length ? [`lack ${missing.join(' and ')}`] : []),
    ...(other.length ? [`have a bad ${other.map((i) => i.path.join('.') || 'record').join(' and ')}`] : []),
  ];
  return { kind: parts.join(' and '), detail: other.map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`).join('; ') };
}

export interface CorrectionsValidation {
  file: string;
  /** Non-blank lines read. */
  lines: number;
  /** Valid, canonical records in file order (the first occurrence of each sample_id). */
  records: CorrectionRecord[];
  /** Rejected lines with their 1-based line numbers. */
  invalid: LineProblem[];
  /** Lines whose sample_id appeared earlier (rejected; the earlier line is kept). */
  duplicates: LineProblem[];
  /** Records that carry an error (kept; counted for the summary). */
  failed: number;
  byDataset: Record<string, number>;
  byPromptType: Record<string, number>;
  /** Keys present in the file that are not part of the schema (dropped from `records`). */
  extraKeys: string[];
  /** Per field the `fill` hook set, on how many lines. */
  filled: Record<string, number>;
  /** No invalid and no duplicate line. */
  ok: boolean;
}

/**
 * Validate every line of a corrections.jsonl produced elsewhere (`phase5 infer --import FILE`). Never throws
 * on bad content: malformed lines are listed with their line numbers so the caller can reject the file
 * (or copy only the valid records into place).
 */
export async function validateCorrectionsFile(file: string, hooks: ValidateHooks = {}): Promise<CorrectionsValidation> {
  const { createReadStream } = await import('node:fs');
  const readline = (await import('node:readline')).default;
  const out: CorrectionsValidation = {
    file,
    lines: 0,
    records: [],
    invalid: [],
    duplicates: [],
    failed: 0,
    byDataset: {},
    byPromptType: {},
    extraKeys: [],
    filled: {},
    ok: true,
  };
  const firstLine = new Map<string, number>();
  const extra = new Set<string>();
  const known = new Set<string>([...CORRECTION_KEYS, ...GUARD_KEYS, ...ANSWER_KEYS]);
  // Our own line loop (not readJsonl), so one bad line does not stop the scan.
  const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line++;
    if (!text.trim()) continue;
    out.lines++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      out.invalid.push({
        line,
        message: `invalid JSON (${(err as Error).message})`,
        kind: 'are not valid JSON',
        detail: (err as Error).message,
      });
      continue;
    }
    if (hooks.fill && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const k of hooks.fill(value as Record<string, unknown>)) out.filled[k] = (out.filled[k] ?? 0) + 1;
    }
    const parsed = CorrectionRecordSchema.safeParse(value);
    if (!parsed.success) {
      out.invalid.push({ line, message: describeZodError(parsed.error), ...zodProblemKind(parsed.error) });
      continue;
    }
    for (const k of Object.keys(value as object)) if (!known.has(k)) extra.add(k);
    const rec = toCorrectionRecord(parsed.data);
    const seenAt = firstLine.get(rec.sample_id);
    if (seenAt !== undefined) {
      const detail = `"${rec.sample_id}" (first at line ${seenAt})`;
      out.duplicates.push({ line, message: `duplicate sample_id ${detail}`, kind: 'repeat a sample_id', detail });
      continue;
    }
    const mismatch = hooks.check?.(rec);
    if (mismatch) {
      out.invalid.push({ line, ...mismatch });
      continue;
    }
    firstLine.set(rec.sample_id, line);
    out.records.push(rec);
    if (isFailed(rec)) out.failed++;
    out.byDataset[rec.dataset] = (out.byDataset[rec.dataset] ?? 0) + 1;
    out.byPromptType[rec.prompt_type] = (out.byPromptType[rec.prompt_type] ?? 0) + 1;
  }
  out.extraKeys = [...extra].sort();
  out.ok = out.invalid.length === 0 && out.duplicates.length === 0;
  return out;
}

/**
 * A validation in one line under 500 characters: counts, then the problems grouped by kind with their lines and
 * first example (src/util/line-problems.ts). `fix(kind)` adds what to do.
 */
export function summarizeValidation(v: CorrectionsValidation, fix?: (kind: string) => string | undefined): string {
  const head = `${v.file}: ${v.lines} line(s), ${v.records.length} valid, ${v.invalid.length + v.duplicates.length} rejected: `;
  const problems = [...v.invalid, ...v.duplicates].map((p) => ({
    line: p.line,
    kind: p.kind ?? p.message,
    detail: p.kind ? p.detail : undefined,
  }));
  return head + summarizeLineProblems(problems, { maxChars: Math.max(120, 500 - head.length), fix });
}

/** A short multi-line report of a validation ("file:line: message" for the first `max` problems). */
export function formatValidation(v: CorrectionsValidation, max = 20): string {
  const lines = [
    `${v.file}: ${v.lines} line(s), ${v.records.length} valid record(s), ${v.invalid.length} invalid, ${v.duplicates.length} duplicate, ${v.failed} with error`,
  ];
  const problems = [...v.invalid, ...v.duplicates].sort((a, b) => a.line - b.line);
  for (const p of problems.slice(0, max)) lines.push(`  ${v.file}:${p.line}: ${p.message}`);
  if (problems.length > max) lines.push(`  … and ${problems.length - max} more`);
  return lines.join('\n');
}

/** Read inference_input.jsonl, validating each line; a bad line throws with file:line and the bad fields. */
export async function readInferenceInput(file: string): Promise<InferenceInputRow[]> {
  const out: InferenceInputRow[] = [];
  for await (const { value, line } of readJsonl(file)) {
    const parsed = InferenceInputSchema.safeParse(value);
    if (!parsed.success) throw new JsonlParseError(file, line, `invalid inference input record: ${describeZodError(parsed.error)}`);
    out.push(parsed.data);
  }
  return out;
}
