/** The shapes `run` (analysis/stage.ts) returns: the small result that crosses Temporal and its arms summary. */
import type { WrittenFile } from '../../src/stages/shared/written-file';
import type { ArmUsage } from '../study/usage';
import type { AnalysisSummary } from '../types';

/** The small result that crosses Temporal. */
export interface AnalyzeResult {
  ragDir: string;
  report: string;
  /** Every file the analysis wrote, with its sha256: an attach to this run checks them (src/stages/shared/written-file.ts). */
  written: WrittenFile[];
  overall: AnalysisSummary['overall'];
  /** `invalid_reason` only on a dataset whose comparison is not valid (too many failed lines): show no ΔCER for it. */
  datasets: {
    dataset: string;
    n: number;
    ocr_cer: number | null;
    zero_shot_cer: number | null;
    rag_cer: number | null;
    delta_cer: number | null;
    invalid_reason?: string;
  }[];
  files: number;
  warnings: string[];
  /** Present when the study arms were analyzed (`<results>/study/arms.json`). */
  arms?: ArmsSummary;
}

/** The arms at a glance (pooled over datasets); the full figures are in `file`. */
export interface ArmsSummary {
  file: string;
  baseline: string;
  skipped: number;
  arms: ArmsSummaryRow[];
}

/** One arm pooled over datasets: `ci` is the paired-bootstrap CI of `delta_cer` (vs the baseline; null on it). */
export interface ArmsSummaryRow {
  name: string;
  upper_bound: boolean;
  lines: number;
  cer: number | null;
  cer_ci: [number, number] | null;
  raw_cer: number | null;
  delta_cer: number | null;
  ci: [number, number] | null;
  p_holm: number | null;
  /** Share of the arm's lines the guard replaced with the OCR text; null when no record carries `guard`. */
  guard_fell_back: number | null;
  /** Passes over the lines (1 without replicates) and the between-replicate SD of the CER (null with one). */
  replicates: number;
  cer_sd: number | null;
  /** arms.json's `usage`: over every record of every replicate. */
  usage: Pick<ArmUsage, 'records' | 'prompt_tokens' | 'completion_tokens' | 'latency_ms' | 'cost'>;
}
