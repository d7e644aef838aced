/** The records a run corrects: validated, filtered by dataset, deduplicated by sample_id. */
import { childLogger } from '../util/log';
import { InferenceInputSchema, type InferenceInputRow } from './records';
import { describeZodError, readInferenceInput } from './record-files';
import type { RunCorrectionsOptions } from './runner-types';

const log = childLogger('infer');

export interface RunInput {
  /** Validated records after the dataset filter. */
  input: InferenceInputRow[];
  /** The first record of each sample_id, in input order. */
  unique: InferenceInputRow[];
  seenInput: Set<string>;
  duplicateInput: number;
  duplicateInputIds: string[];
}

/** 1. Input: validated records, filtered by dataset, deduplicated by sample_id. */
export async function readInput(opts: RunCorrectionsOptions): Promise<RunInput> {
  let input = await loadInputRecords(opts.inputPath);
  if (opts.datasets) {
    const wanted = new Set(opts.datasets);
    input = input.filter((r) => wanted.has(r.dataset));
  }
  const seenInput = new Set<string>();
  let duplicateInput = 0;
  const duplicateInputIds: string[] = [];
  const unique: InferenceInputRow[] = [];
  for (const r of input) {
    if (seenInput.has(r.sample_id)) {
      if (duplicateInput++ < 3) duplicateInputIds.push(r.sample_id);
    } else {
      seenInput.add(r.sample_id);
      unique.push(r);
    }
  }
  if (duplicateInput > 0)
    log.warn({ duplicateInput }, `input has ${duplicateInput} duplicate sample_id(s); only the first of each is used`);
  return { input, unique, seenInput, duplicateInput, duplicateInputIds };
}

async function loadInputRecords(inputPath: RunCorrectionsOptions['inputPath']): Promise<InferenceInputRow[]> {
  if (typeof inputPath === 'string') return readInferenceInput(inputPath);
  return inputPath.map((r, i) => {
    const parsed = InferenceInputSchema.safeParse(r);
    if (!parsed.success) throw new Error(`input record #${i + 1}: ${describeZodError(parsed.error)}`);
    return parsed.data;
  });
}
