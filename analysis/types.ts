/**
 * Public option and result types of the analyze stage (plain objects: they cross the Temporal boundary).
 */
import type { AnalyzeArmsOptions, ArmsAnalysis, ArmsStatsOptions } from './study/arms';
import type { Resampling } from './stats/clusters';
import type { ArmSource } from './lines/line-arms';
import type { Era } from './score/eras';
import type { NormalizationConfig } from '../src/text/profiles';

/** Study-level facts from the config, recorded in every output's meta (docs/outputs.md#metricsjson). */
export interface StudyMeta {
  /** LLM id; default: the most frequent `model` among the rag arm's records. */
  model?: string;
  embedding_model?: string;
  top_k?: number;
  corpus_size?: number;
  /** Default: the most frequent `prompt_version` among the rag arm's records. */
  prompt_version?: string;
}

/** What the caller knows about a dataset's source book (for the leakage line). */
export interface DatasetInfo {
  /** True when the dataset's source book was held out of the corpus by config. */
  excluded: boolean;
  /** Version-URI glob of the source book in OpenITI (config `source_pattern`), e.g. "0276IbnQutayba.Adab*". */
  sourcePattern?: string;
  /** The works (`NNNNAuthor.Title`) the source pattern names: a retrieved sentence of any of their versions is a hit from the source. */
  sourceWorks?: string[];
}

/** `analysis.normalization` (src/text/profiles.ts): primary profile, secondary profiles, user profiles. */
export type NormalizationOptions = NormalizationConfig;

export interface RenderReportOptions {
  /** Also write charts/*.png next to the SVGs (default true). */
  png?: boolean;
  /** Report title. */
  title?: string;
  /** The analysis of the study arms: adds the "Arms" section and its charts (analysis/report/sections/arms.ts). */
  arms?: ArmsAnalysis;
}

/**
 * The arms analysis's options as the stage sets them from the config (analysis/stage.ts `armsOptions`), handed to
 * `analyzeArms` whole; the stage adds only what the run shares with the design files (bootstrap, profiles, datasets).
 */
export type ArmsRunOptions = Pick<AnalyzeArmsOptions, 'resultsDir' | 'baseline' | 'exclusions' | 'defaultArms' | 'planLock'> &
  ArmsStatsOptions;

export interface AnalyzeOptions {
  ragDir: string;
  /** Directory holding the zero_shot baseline's corrections.jsonl (or per-dataset splits); null = none. */
  baselineDir?: string | null;
  /** Subset of dataset keys (default: every dataset in the rag arm's corrections). */
  datasets?: string[];
  /** Write error_changes.json (default true; `--no-error-analysis` sets false). */
  errorAnalysis?: boolean;
  meta?: StudyMeta;
  datasetInfo?: Record<string, DatasetInfo>;
  /** Resamples, seed, and the clusters / permutations / fewest clusters of every interval and test (docs/statistics.md). */
  bootstrap?: { iterations?: number; seed?: number } & Resampling;
  /** Default: primary `nfc`, secondary `no_diacritics` and `graphemes`; null = the primary profile alone. */
  normalization?: NormalizationOptions | null;
  /** Collapse inner whitespace runs before scoring (default true; false = trim only). */
  collapseWhitespace?: boolean;
  /** Eras for the date distribution of top-1 hits (default 0-300 / 300-600 / 600-900 / 900+ AH). */
  eras?: Era[];
  /** Confusions listed per kind in error_changes.json (default 20). */
  topConfusions?: number;
  /** Render report.md / report.html / charts after the JSON files (default true). */
  report?: boolean | RenderReportOptions;
  /**
   * Where report.md / report.html, charts/ and report-lines/ go (default ragDir). The analyze stage writes the
   * study's one report to `<results>/study/` (docs/report.md) and removes an earlier run's copy from ragDir.
   */
  reportDir?: string;
  /** Override the `generated_at` stamp (default: mtime of the newest input file, ISO). */
  generatedAt?: string;
  /** Append a summary to this log (default `<ragDir>/phase5.log`; false = no log file). */
  logFile?: string | false;
  /** Called as lines are scored (activities heartbeat with it). */
  onProgress?: (done: number, total: number) => void;
  /** Progress display (default: bar in a TTY, log lines otherwise). */
  progress?: 'bar' | 'log' | 'silent';
  /** A comparison in which an arm failed on a larger share of lines is marked not valid (default 0.01). */
  maxFailedShare?: number;
  /**
   * Analyze the study arms under `<resultsDir>/arms/` too (analysis/study/arms.ts): `<resultsDir>/study/arms.json`, each
   * arm's metrics.json and the report's "Arms" section. Set by the stage when `study:` is configured or the
   * arms folder exists; absent = the two default arms' analysis only.
   */
  arms?: ArmsRunOptions;
  /**
   * Write lines.json + error_classes.json and the report's Lines view (default true); an object names arms shown
   * beside rag and zero_shot there and the arm ΔCER is measured against.
   */
  lines?: boolean | LinesViewOptions;
}

/** The Lines view's extra arms and baseline (`AnalyzeOptions.lines`). */
export interface LinesViewOptions {
  /** Arms shown beside rag and zero_shot in the Lines view and the error-class table. */
  arms?: ArmSource[];
  /** The arm ΔCER is measured against in the Lines view (default: the study's baseline, else zero_shot, else the first arm). */
  baseline?: string;
}

/** Set only on a comparison that is not valid (too many failed lines); absent when it is valid. */
export interface ValidityMark {
  valid?: false;
  invalid_reason?: string;
}

export interface DatasetSummary extends ValidityMark {
  dataset: string;
  num_samples: number;
  /** Samples that also have a zero_shot line (the comparison set). */
  n_paired: number;
  ocr_cer: number | null;
  ocr_wer: number | null;
  zero_shot_cer: number | null;
  zero_shot_wer: number | null;
  rag_cer: number | null;
  rag_wer: number | null;
  delta_cer: number | null;
  delta_wer: number | null;
  delta_cer_ci95: [number, number] | null;
  /** Why delta_cer_ci95 is null (too few clusters: docs/statistics.md); null when it is given. */
  delta_cer_reason: string | null;
  /** The block permutation p of ΔCER below α = 0.05; null where there is no p. */
  significant: boolean | null;
  failures_rag: number;
  failures_zero_shot: number;
  help_rate: number | null;
  harm_rate: number | null;
  avg_top1_score: number | null;
  leakage: string;
  interpretation: string;
}

export interface AnalysisSummary {
  generated_at: string;
  rag_dir: string;
  datasets: DatasetSummary[];
  overall: ValidityMark & {
    num_samples: number;
    n_paired: number;
    ocr_cer: number | null;
    zero_shot_cer: number | null;
    rag_cer: number | null;
    delta_cer: number | null;
    delta_cer_ci95: [number, number] | null;
    delta_cer_reason: string | null;
    interpretation: string;
  };
  /** Files written, relative to ragDir, sorted. */
  files: string[];
  warnings: string[];
}
