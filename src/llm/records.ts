/**
 * Record shapes of the infer stage and their schemas (zod); whole files are read and validated beside them
 * (./record-files.ts):
 *  - `inference_input.jsonl` lines (written by export, read by the runner);
 *  - `corrections.jsonl` lines (written by the runner, or produced elsewhere and imported).
 */
import { z } from 'zod';
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
