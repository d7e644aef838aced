/**
 * The one reader of the analysis's JSONL records — corrections.jsonl and inference_input.jsonl, of the default
 * arms and of study arms alike: each line validated with the infer stage's schemas (a malformed line is an error
 * naming file:line and the bad fields), kept by dataset in file order; a repeated (dataset, sample_id) keeps its
 * first line and is counted as a duplicate.
 */
import { statSync } from 'node:fs';
import { z } from 'zod';
import { readJsonl } from '../../src/io/jsonl';
import { CorrectionRecordSchema, InferenceInputSchema, toCorrectionRecord, type CorrectionRecord } from '../../src/llm/records';
import { describeZodError } from '../../src/llm/record-files';
import { UserInputError } from '../../src/stages/shared/types';

export const RetrievalSourceSchema = z.object({
  source_uri: z.string(),
  idx: z.number().int().nullish(),
  date: z.union([z.number(), z.string()]).nullish(),
});

/** inference_input.jsonl line as the analysis needs it (retrieval scores and sources). */
export const AnalysisInputSchema = InferenceInputSchema.extend({
  prompt_version: z.string().nullish(),
  retrieval_sources: z.array(RetrievalSourceSchema).nullish(),
});
export type AnalysisInputRecord = z.infer<typeof AnalysisInputSchema>;

export interface Loaded<T> {
  record: T;
  /** The line exactly as parsed (written back unchanged into the per-dataset split). */
  raw: unknown;
  line: number;
}

export interface DuplicateInfo {
  file: string;
  line: number;
  dataset: string;
  sample_id: string;
  firstLine: number;
}

export interface LoadedFile<T> {
  file: string;
  /** dataset → records in file order. */
  byDataset: Map<string, Array<Loaded<T>>>;
  duplicates: DuplicateInfo[];
  mtimeMs: number;
}

/** The key of one line of a study: its dataset and its sample_id. */
export const lineKey = (dataset: string, sampleId: string): string => `${dataset}\u0000${sampleId}`;

export async function loadFile<T extends { dataset: string; sample_id: string }>(
  file: string,
  parse: (v: unknown) => { ok: true; value: T } | { ok: false; error: string },
  keep: (dataset: string) => boolean,
): Promise<LoadedFile<T>> {
  const byDataset = new Map<string, Array<Loaded<T>>>();
  const seen = new Map<string, number>();
  const duplicates: DuplicateInfo[] = [];
  for await (const { value, line } of readJsonl(file)) {
    const p = parse(value);
    if (!p.ok) throw new UserInputError(`${file}:${line}: ${p.error}`);
    const rec = p.value;
    if (!keep(rec.dataset)) continue;
    const key = lineKey(rec.dataset, rec.sample_id);
    const first = seen.get(key);
    if (first !== undefined) {
      duplicates.push({ file, line, dataset: rec.dataset, sample_id: rec.sample_id, firstLine: first });
      continue;
    }
    seen.set(key, line);
    let list = byDataset.get(rec.dataset);
    if (!list) byDataset.set(rec.dataset, (list = []));
    list.push({ record: rec, raw: value, line });
  }
  return { file, byDataset, duplicates, mtimeMs: statSync(file).mtimeMs };
}

export function parseCorrection(v: unknown): { ok: true; value: CorrectionRecord } | { ok: false; error: string } {
  const r = CorrectionRecordSchema.safeParse(v);
  return r.success
    ? { ok: true, value: toCorrectionRecord(r.data) }
    : { ok: false, error: `invalid corrections record: ${describeZodError(r.error)}` };
}

export function parseInferenceInput(v: unknown): { ok: true; value: AnalysisInputRecord } | { ok: false; error: string } {
  const r = AnalysisInputSchema.safeParse(v);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: `invalid inference input record: ${describeZodError(r.error)}` };
}
