/**
 * Record shapes of the infer stage and their validation (zod):
 *  - `inference_input.jsonl` lines (written by export, read by the runner);
 *  - `corrections.jsonl` lines (written by the runner, or produced elsewhere and imported).
 */
import { z } from 'zod';
import { JsonlParseError, readJsonl } from '../io/jsonl';
import { summarizeLineProblems } from '../util/line-problems';
import type { GuardDecision } from './guard';
import type { FailureInfo } from './types';

export const PROMPT_TYPES = ['rag', 'zero_shot_fallback', 'zero_shot'] as const;

/** One line of inference_input.jsonl as export writes it (docs/outputs.md#inference_inputjsonl). */
export interface InferenceInputRecord {
  sample_id: string;
  dataset: string;
  ocr_text: string;
  gt_text: string;
  prompt_type: 'rag' | 'zero_shot_fallback';
  prompt_version: string;
  retrieval_context: string;
  retrieved_k: number;
  retrieval_scores: number[];
  /** source_uri + corpus idx (+ source line when the corpus records it) per hit, for citations. */
  retrieval_sources: {
    source_uri: string;
    idx: number;
    date: number | null;
    line?: number | null;
    line_end?: number;
    page?: string | null;
    ms?: string | null;
    /** same_passage / same_work / other_work / unknown_work (src/witness/provenance.ts); rag records of every mode. */
    provenance?: string;
  }[];
  /** Rag records of every retrieval mode: whether a hit holds the line's gold passage (src/witness/provenance.ts). */
  gold_in_context?: boolean;
}

/**
 * What the runner accepts as an inference_input.jsonl line — export's records, or a file made by another tool:
 * only the core keys of docs/outputs.md#inference_inputjsonl are required; extra keys are allowed and ignored.
 */
export const InferenceInputSchema = z.object({
  sample_id: z.string().min(1),
  dataset: z.string().min(1),
  ocr_text: z.string(),
  gt_text: z.string(),
  prompt_type: z.string().optional(),
  retrieval_context: z.string().nullish(),
  retrieved_k: z.number().int().nonnegative().nullish(),
  retrieval_scores: z.array(z.number()).nullish(),
});
export type InferenceInputRow = z.infer<typeof InferenceInputSchema>;

export const FailureInfoSchema = z.object({
  reason: z.string().min(1),
  status: z.number().int().nullable(),
  message: z.string(),
  attempts: z.number().int().nonnegative(),
});

/** One line of corrections.jsonl, in the key order the runner writes. */
export interface CorrectionRecord {
  sample_id: string;
  dataset: string;
  prompt_type: (typeof PROMPT_TYPES)[number];
  prompt_version: string;
  model: string;
  ocr_text: string;
  gt_text: string;
  corrected_text: string;
  raw_output: string;
  /** Only when the over-correction guard ran (./guard): the untouched model output (= raw_output). */
  raw_text?: string;
  /** Only when the over-correction guard ran: `kept` | `trimmed` | `fell_back:<reason>`. */
  guard?: GuardDecision;
  latency_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** Only where the backend reports it (the HTTP one): the response's `model` — what served the line, not what was asked. */
  served_model?: string | null;
  /** Only where the backend reports it: the response's `system_fingerprint` (null when the server sends none). */
  system_fingerprint?: string | null;
  /** Only where the backend reports it: why generation stopped (`stop`, `length`, …). */
  finish_reason?: string | null;
  /** Only when the model gave one: its reasoning trace (`reasoning_content`, or a `<think>` block), never in corrected_text. */
  reasoning?: string;
  /** null on success; our failure object (reason from FailureReason), or a plain string from an imported file. */
  error: (Omit<FailureInfo, 'reason'> & { reason: string }) | string | null;
}

const count = z.number().int().nonnegative().nullable();

/**
 * Accepts what the runner writes and what another tool may have written: `raw_output`, `latency_ms`,
 * token counts and `error` may be missing (they default to corrected_text / null); the guard's `raw_text` and
 * `guard` are optional and kept when present. Unknown keys are allowed and dropped by `toCorrectionRecord`.
 */
export const CorrectionRecordSchema = z.object({
  sample_id: z.string().min(1),
  dataset: z.string().min(1),
  prompt_type: z.enum(PROMPT_TYPES),
  prompt_version: z.string().min(1),
  model: z.string().min(1),
  ocr_text: z.string(),
  gt_text: z.string(),
  corrected_text: z.string(),
  raw_output: z.string().optional(),
  raw_text: z.string().optional(),
  guard: z
    .string()
    .regex(/^(?:kept|trimmed|fell_back:\S+)$/, 'expected "kept", "trimmed" or "fell_back:<reason>"')
    .optional(),
  latency_ms: z.number().nonnegative().nullable().optional(),
  prompt_tokens: count.optional(),
  completion_tokens: count.optional(),
  served_model: z.string().nullable().optional(),
  system_fingerprint: z.string().nullable().optional(),
  finish_reason: z.string().nullable().optional(),
  reasoning: z.string().optional(),
  error: z.union([FailureInfoSchema, z.string(), z.null()]).optional(),
});

export const CORRECTION_KEYS = [
  'sample_id',
  'dataset',
  'prompt_type',
  'prompt_version',
  'model',
  'ocr_text',
  'gt_text',
  'corrected_text',
  'raw_output',
  'latency_ms',
  'prompt_tokens',
  'completion_tokens',
  'error',
] as const;

/** Keys a record carries only when its backend reports them (provenance) or the model reasoned; they precede `error`. */
export const ANSWER_KEYS = ['served_model', 'system_fingerprint', 'finish_reason', 'reasoning'] as const;

/** Keys a record carries only when the over-correction guard ran; they follow `raw_output`. */
export const GUARD_KEYS = ['raw_text', 'guard'] as const;

/**
 * Canonical record (key order of CORRECTION_KEYS, defaults filled in, unknown keys dropped); the guard's keys
 * (GUARD_KEYS) are kept after `raw_output` when present, and never added when absent.
 */
export function toCorrectionRecord(v: z.infer<typeof CorrectionRecordSchema>): CorrectionRecord {
  return {
    sample_id: v.sample_id,
    dataset: v.dataset,
    prompt_type: v.prompt_type,
    prompt_version: v.prompt_version,
    model: v.model,
    ocr_text: v.ocr_text,
    gt_text: v.gt_text,
    corrected_text: v.corrected_text,
    raw_output: v.raw_output ?? v.corrected_text,
    ...(v.raw_text !== undefined ? { raw_text: v.raw_text } : {}),
    ...(v.guard !== undefined ? { guard: v.guard as GuardDecision } : {}),
    latency_ms: v.latency_ms ?? null,
    prompt_tokens: v.prompt_tokens ?? null,
    completion_tokens: v.completion_tokens ?? null,
    ...(v.served_model !== undefined ? { served_model: v.served_model } : {}),
    ...(v.system_fingerprint !== undefined ? { system_fingerprint: v.system_fingerprint } : {}),
    ...(v.finish_reason !== undefined ? { finish_reason: v.finish_reason } : {}),
    ...(v.reasoning !== undefined ? { reasoning: v.reasoning } : {}),
    // An empty string means "no error" in some writers.
    error: v.error === '' ? null : (v.error ?? null),
  };
}

/** True when the record is a recorded failure (not a correction). */
export function isFailed(r: Pick<CorrectionRecord, 'error'>): boolean {
  return r.error !== null && r.error !== undefined && r.error !== '';
}

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
