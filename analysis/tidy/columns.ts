/**
 * The tidy per-line table of a study (docs/tidy-data.md): one row per line × arm × replicate, in the order of
 * the study's lines (analysis/study/alignment.ts) with the arms in arms.json order. Scoring is the arms
 * analysis's (analysis/score/arm-line.ts): a failed or missing line scores as its OCR text, so for every arm
 * Σ cer_edits / Σ gold_chars is arms.json's `cer` before rounding. Per normalisation profile the four counts
 * repeat with the profile's name as a suffix (`cer_edits_nfc`, …); the unsuffixed ones are the primary profile's.
 * Then the MER denominators, so cMER and the preference score follow from the table too; when the memorisation probe
 * ran, its per-line score last.
 */
import type { ScoreBucket } from '../score/bands';

/** One row of the tidy table. */
export interface TidyRow {
  dataset: string;
  sample_id: string;
  /** The line's resampling cluster within its dataset (analysis/stats/clusters.ts), 0-based. */
  cluster: number;
  arm: string;
  /** Replicate number of the arm's run (0 without replicates). */
  replicate: number;
  ocr_text: string;
  gold_text: string;
  /** The recorded correction (a failed line keeps what the record holds; it is scored as the OCR text). */
  corrected_text: string;
  failed: boolean;
  /** The arm lacked the line; scored as the OCR text (missing_lines: ocr). */
  filled: boolean;
  /** Counts under the primary profile, then `<count>_<profile>` for every profile. */
  counts: Record<string, number>;
  ocr_cer_edits: number;
  guard: string | null;
  top_score: number | null;
  score_band: ScoreBucket | null;
  gold_in_context: boolean | null;
  hit_provenance: string | null;
  model: string;
  served_model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  latency_ms: number | null;
  error: string | null;
  /**
   * MER denominators H + S + D + I under the primary profile (src/text/mer.ts): the scored output's characters and
   * words and the OCR text's characters — Σ cer_edits / Σ cmer_total is arms.json's `cmer`.
   */
  cmer_total: number;
  wmer_total: number;
  ocr_cmer_total: number;
  /**
   * The probe's continuation CER of the line's gold (analysis/probe/line-scores.ts) for the arm's model, and whether it
   * counts as memorised (CER ≤ probe.verbatim_cer); null for a line not probed. Columns only when a probe ran.
   */
  memorisation_cer?: number | null;
  memorised?: boolean | null;
}

export const COUNT_NAMES = ['cer_edits', 'gold_chars', 'wer_edits', 'gold_words'] as const;

type ColumnType = 'STRING' | 'INT32' | 'DOUBLE' | 'BOOLEAN';

/** Column name, parquet type and how to read it from a row, in table order. */
export function tidyColumns(profiles: readonly string[], probe = false): { name: string; type: ColumnType; of: (r: TidyRow) => unknown }[] {
  const field = (name: keyof TidyRow, type: ColumnType) => ({ name, type, of: (r: TidyRow) => r[name] });
  const count = (name: string) => ({ name, type: 'INT32' as const, of: (r: TidyRow) => r.counts[name] });
  return [
    field('dataset', 'STRING'),
    field('sample_id', 'STRING'),
    field('cluster', 'INT32'),
    field('arm', 'STRING'),
    field('replicate', 'INT32'),
    field('ocr_text', 'STRING'),
    field('gold_text', 'STRING'),
    field('corrected_text', 'STRING'),
    field('failed', 'BOOLEAN'),
    field('filled', 'BOOLEAN'),
    ...COUNT_NAMES.map(count),
    ...profiles.flatMap((p) => COUNT_NAMES.map((c) => count(`${c}_${p}`))),
    field('ocr_cer_edits', 'INT32'),
    field('guard', 'STRING'),
    field('top_score', 'DOUBLE'),
    field('score_band', 'STRING'),
    field('gold_in_context', 'BOOLEAN'),
    field('hit_provenance', 'STRING'),
    field('model', 'STRING'),
    field('served_model', 'STRING'),
    field('prompt_tokens', 'INT32'),
    field('completion_tokens', 'INT32'),
    field('latency_ms', 'DOUBLE'),
    field('error', 'STRING'),
    field('cmer_total', 'INT32'),
    field('wmer_total', 'INT32'),
    field('ocr_cmer_total', 'INT32'),
    ...(probe ? [field('memorisation_cer', 'DOUBLE'), field('memorised', 'BOOLEAN')] : []),
  ];
}
