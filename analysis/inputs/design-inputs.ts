/**
 * Reading the design document's inputs: `<ragDir>/inference_input.jsonl`, `<ragDir>/corrections.jsonl`
 * (the rag arm) and `<baselineDir>/corrections.jsonl` (the zero-shot baseline), through the one record reader
 * (./records.ts); duplicates are logged as warnings.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CorrectionRecord } from '../../src/llm/records';
import type { Logger } from '../../src/util/log';
import { cmpStr } from '../format';
import { loadFile, parseCorrection, parseInferenceInput, type AnalysisInputRecord, type LoadedFile } from './records';

export interface DesignInputs {
  /** Sorted dataset keys to analyse. */
  datasets: string[];
  rag: LoadedFile<CorrectionRecord>;
  /** null when no baseline was found. */
  zeroShot: LoadedFile<CorrectionRecord> | null;
  /** null when inference_input.jsonl is absent. */
  inferenceInput: LoadedFile<AnalysisInputRecord> | null;
  /** ISO time of the newest input file (the deterministic `generated_at`). */
  newestInputIso: string;
  warnings: string[];
}

export interface LoadOptions {
  ragDir: string;
  baselineDir?: string | null;
  datasets?: string[];
  log?: Logger;
}

/** Load and validate every input of one analysis run. */
export async function loadDesignInputs(opts: LoadOptions): Promise<DesignInputs> {
  const warnings: string[] = [];
  const warn = (msg: string, extra: Record<string, unknown> = {}) => {
    warnings.push(msg);
    opts.log?.warn(extra, msg);
  };
  const want = opts.datasets && opts.datasets.length > 0 ? new Set(opts.datasets) : null;
  const keep = (d: string) => want === null || want.has(d);

  const ragFile = path.join(opts.ragDir, 'corrections.jsonl');
  if (!existsSync(ragFile)) {
    throw new Error(`${ragFile} not found: run the infer stage (or import a corrections.jsonl) before analyze`);
  }
  const rag = await loadFile(ragFile, parseCorrection, keep);
  const present = [...rag.byDataset.keys()].sort(cmpStr);
  if (want) {
    const missing = [...want].filter((d) => !rag.byDataset.has(d)).sort(cmpStr);
    if (missing.length > 0) {
      throw new Error(`${ragFile}: no records for dataset(s) ${missing.join(', ')} (asked for with --datasets)`);
    }
  }
  if (present.length === 0) throw new Error(`${ragFile}: no correction records`);
  for (const d of present) {
    if (d.includes('/') || d.includes('\\') || d === '.' || d === '..') {
      throw new Error(`${ragFile}: dataset key "${d}" cannot be used as a folder name`);
    }
  }

  const inFile = path.join(opts.ragDir, 'inference_input.jsonl');
  let inferenceInput: LoadedFile<AnalysisInputRecord> | null = null;
  if (existsSync(inFile)) inferenceInput = await loadFile(inFile, parseInferenceInput, keep);
  else warn(`${inFile} not found: retrieval analysis will report no retrieval data`, { file: inFile });

  let zeroShot: LoadedFile<CorrectionRecord> | null = null;
  if (opts.baselineDir) {
    const zeroShotFile = path.join(opts.baselineDir, 'corrections.jsonl');
    if (existsSync(zeroShotFile)) {
      zeroShot = await loadFile(zeroShotFile, parseCorrection, keep);
    } else {
      // Older zero_shot results may only have the per-dataset splits.
      const merged: LoadedFile<CorrectionRecord> = { file: zeroShotFile, byDataset: new Map(), duplicates: [], mtimeMs: 0 };
      for (const d of present) {
        const f = path.join(opts.baselineDir, d, 'corrections.jsonl');
        if (!existsSync(f)) continue;
        const one = await loadFile(f, parseCorrection, (x) => x === d);
        for (const [k, v] of one.byDataset) merged.byDataset.set(k, v);
        merged.duplicates.push(...one.duplicates);
        merged.mtimeMs = Math.max(merged.mtimeMs, one.mtimeMs);
      }
      if (merged.byDataset.size > 0) zeroShot = merged;
      else
        warn(`no zero_shot baseline under ${opts.baselineDir} (corrections.jsonl): comparisons will be empty`, { dir: opts.baselineDir });
    }
  } else {
    warn('no zero_shot folder given: comparisons will be empty');
  }

  const MAX_LISTED = 20;
  for (const f of [rag, zeroShot, inferenceInput]) {
    const dups = f?.duplicates ?? [];
    for (const d of dups.slice(0, MAX_LISTED)) {
      warn(`${d.file}:${d.line}: duplicate sample_id "${d.sample_id}" in dataset ${d.dataset} (first at line ${d.firstLine}); skipped`, {
        file: d.file,
        line: d.line,
      });
    }
    if (dups.length > MAX_LISTED) warn(`${f!.file}: ${dups.length} duplicate lines in all (first ${MAX_LISTED} listed); skipped`);
  }

  const newest = Math.max(rag.mtimeMs, zeroShot?.mtimeMs ?? 0, inferenceInput?.mtimeMs ?? 0);
  return { datasets: present, rag, zeroShot, inferenceInput, newestInputIso: new Date(Math.floor(newest)).toISOString(), warnings };
}
