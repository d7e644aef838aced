/**
 * The arms the Lines view shows: a list of {name, corrections per line, retrieval per line}. Without
 * study arms these are the two default arms — `rag` (arms/rag/, with its
 * inference_input.jsonl) and `zero_shot` (arms/zero_shot/), baseline `zero_shot` — and callers may add more
 * (`AnalyzeOptions.arms`: a corrections file, optionally its inference_input.jsonl), so further arms plug in.
 */
import { existsSync } from 'node:fs';
import type { CorrectionRecord } from '../../src/llm/records';
import { scoredText } from '../score/failed-line';
import type { DesignInputs } from '../inputs/design-inputs';
import { lineKey, loadFile, parseCorrection, parseInferenceInput, type AnalysisInputRecord, type Loaded } from '../inputs/records';

/** An extra arm for the Lines view (study arms: `<results>/arms/<arm>/`). */
export interface ArmSource {
  name: string;
  /** Its corrections.jsonl (the record shape of the infer stage; `raw_text` / `guard` read when present). */
  correctionsPath: string;
  /** Its inference_input.jsonl, for the retrieved sentences (absent = none shown). */
  inferenceInputPath?: string;
  /** Retrieval mode as the arm records it (dense, hybrid, random, gold_query, none). */
  retrievalMode?: string;
  /** True for an oracle arm (gold_query): an upper bound, not a method. */
  upperBound?: boolean;
  /** The corrections.jsonl of its replicates 1 … (an arm with replicates; docs/outputs.md#replicates). */
  replicatePaths?: string[];
}

/** An arm as the Lines view reads it: its records keyed by dataset + sample_id (the analysis's arm is inputs/arm-inputs.ts' LoadedArm). */
export interface LineArm {
  name: string;
  retrievalMode: string | null;
  upperBound: boolean;
  corrections: Map<string, Loaded<CorrectionRecord>>;
  inputs: Map<string, AnalysisInputRecord> | null;
  /** Per replicate 1 …, the text each line is scored on (the corrected text, the OCR text when failed), by line key. */
  replicates?: Map<string, string>[];
}

/** Flatten per-dataset records into one map by line key. */
function byLine<T extends { dataset: string; sample_id: string }>(byDataset: Map<string, Array<Loaded<T>>>): Map<string, Loaded<T>> {
  const m = new Map<string, Loaded<T>>();
  for (const list of byDataset.values()) for (const x of list) m.set(lineKey(x.record.dataset, x.record.sample_id), x);
  return m;
}

function recordsOnly<T extends { dataset: string; sample_id: string }>(byDataset: Map<string, Array<Loaded<T>>>): Map<string, T> {
  return new Map([...byLine(byDataset)].map(([k, v]) => [k, v.record]));
}

/** The two default arms: rag (with retrieval) and, when there is a baseline, zero_shot. */
export function defaultArms(inputs: DesignInputs): LineArm[] {
  const arms: LineArm[] = [
    {
      name: 'rag',
      retrievalMode: inputs.inferenceInput ? 'dense' : null,
      upperBound: false,
      corrections: byLine(inputs.rag.byDataset),
      inputs: inputs.inferenceInput ? recordsOnly(inputs.inferenceInput.byDataset) : null,
    },
  ];
  if (inputs.zeroShot)
    arms.push({
      name: 'zero_shot',
      retrievalMode: 'none',
      upperBound: false,
      corrections: byLine(inputs.zeroShot.byDataset),
      inputs: null,
    });
  return arms;
}

/**
 * The study arms that join the two default arms: one named like a default arm (a study arm `rag` beside
 * results/phase5) would be a second column of the same name, so the default arm keeps it (with a warning).
 */
export function joiningStudyArms(study: readonly ArmSource[], defaults: readonly LineArm[], warnings: string[]): ArmSource[] {
  const taken = new Set(defaults.map((a) => a.name));
  for (const s of study.filter((x) => taken.has(x.name))) {
    warnings.push(
      `study arm "${s.name}" has the name of a default arm; the Lines view shows the default arm's lines (${s.correctionsPath} left out there)`,
    );
  }
  return study.filter((x) => !taken.has(x.name));
}

/** Load extra arms (only the analysed datasets); a missing file is a clear one-line error. */
export async function loadExtraArms(
  sources: readonly ArmSource[],
  datasets: readonly string[],
  taken: readonly string[],
): Promise<LineArm[]> {
  const keep = (d: string) => datasets.includes(d);
  const names = new Set(taken);
  const arms: LineArm[] = [];
  for (const s of sources) {
    if (names.has(s.name)) throw new Error(`arm "${s.name}" is given twice (arms: ${[...names].join(', ')})`);
    names.add(s.name);
    if (!existsSync(s.correctionsPath)) throw new Error(`${s.correctionsPath} not found (corrections of arm "${s.name}")`);
    const corrections = await loadFile(s.correctionsPath, parseCorrection, keep);
    const input =
      s.inferenceInputPath && existsSync(s.inferenceInputPath) ? await loadFile(s.inferenceInputPath, parseInferenceInput, keep) : null;
    arms.push({
      name: s.name,
      retrievalMode: s.retrievalMode ?? null,
      upperBound: s.upperBound === true,
      corrections: byLine(corrections.byDataset),
      inputs: input ? recordsOnly(input.byDataset) : null,
      ...(s.replicatePaths?.length ? { replicates: await replicateTexts(s.replicatePaths, keep) } : {}),
    });
  }
  return arms;
}

/** Each replicate file's scored text per line key (a failed line scores as its OCR text). */
async function replicateTexts(files: readonly string[], keep: (d: string) => boolean): Promise<Map<string, string>[]> {
  const out: Map<string, string>[] = [];
  for (const file of files) {
    const loaded = await loadFile(file, parseCorrection, keep);
    out.push(new Map([...recordsOnly(loaded.byDataset)].map(([k, r]) => [k, scoredText(r)])));
  }
  return out;
}

/** The baseline arm: the one asked for, else zero_shot when present, else the first arm. */
export function baselineArm(arms: readonly LineArm[], asked?: string): string {
  if (asked !== undefined) {
    if (!arms.some((a) => a.name === asked))
      throw new Error(`baseline arm "${asked}" is not one of the arms (${arms.map((a) => a.name).join(', ')})`);
    return asked;
  }
  return arms.some((a) => a.name === 'zero_shot') ? 'zero_shot' : arms[0].name;
}
