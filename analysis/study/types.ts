/** What the arms analysis is asked (options) and what it answers (arms.json: per arm, per dataset and pooled figures). */
import type { OcrCerBand } from '../score/bands';
import type { BandCounts, GuardRates } from './counts';
import type { ArmUsage, TokenPrice } from './usage';
import type { MissingLines } from './alignment';
import type { MacroComparison, PairedComparison } from './compare';
import type { ContrastResult } from './measure-contrasts';
import type { ArmInfo, ArmSkip } from '../inputs/arm-inputs';
import type { DefaultArms } from '../inputs/default-arms';
import type { methodsNote } from './methods-note';
import type { ArmWhen } from './when';
import type { ClusterSpec } from '../stats/clusters';
import type { DatasetExclusion } from '../inputs/leakage';
import type { armProfiles } from './profiles';
import type { NormalizationConfig } from '../../src/text/profiles';
import type { ArmLineCounts } from '../score/line-counts';
import type { MerFigures } from './mer-figures';

export const ARMS_SCHEMA_ID = 'openiti-rag/arms/v1';

/** The arms analysis's statistics settings (config `analysis.*`, `study.contrasts`, `datasets.*.page_pattern`). */
export type ArmsStatsOptions = Pick<
  AnalyzeArmsOptions,
  'clusters' | 'missingLines' | 'contrasts' | 'permutations' | 'prices' | 'minClusters' | 'primaryMetric'
>;

export interface AnalyzeArmsOptions {
  /** The results root (holding `arms/`); outputs go to `<resultsDir>/study/arms.json` and each arm's folder. */
  resultsDir: string;
  /** Arm every other arm is compared with. */
  baseline: string;
  bootstrap?: { iterations?: number; seed?: number };
  /** Permutations of the block permutation test (default 10,000). */
  permutations?: number;
  /** Fewest clusters for an interval, p and detectable effect (default 10; analysis/stats/min-clusters.ts). */
  minClusters?: number;
  /** How lines cluster (analysis/stats/clusters.ts); default blocks of 25 consecutive lines. */
  clusters?: ClusterSpec;
  /** A line one arm has and another lacks: fail (default) or score it as the OCR text and count it. */
  missingLines?: MissingLines;
  /** `analysis.primary_metric`: the planned contrasts in ΔCER (default) or ΔcMER. */
  primaryMetric?: import('./measure-contrasts').PrimaryMetric;
  /** Planned contrasts (`study.contrasts`: ΔCER = CER(arm) − CER(vs)); default analysis/study/planned-contrasts.ts's. */
  contrasts?: ReadonlyArray<{ arm: string; vs: string }>;
  /** Collapse inner whitespace runs before scoring (default true, as the main analysis). */
  collapseWhitespace?: boolean;
  /** Subset of dataset keys (default: all). */
  datasets?: string[];
  /** Override `generated_at` (default: mtime of the newest corrections.jsonl, ISO). */
  generatedAt?: string;
  /** Write arms.json and the per-arm metrics.json (default true). */
  write?: boolean;
  /** Per dataset, what the corpus held out of its source (analysis/stage/corpus-exclusions.ts); absent = not known. */
  exclusions?: DatasetExclusion[];
  /** `analysis.normalization`: the profiles of arms.json's `profiles` list (default nfc + no_diacritics + graphemes). */
  normalization?: NormalizationConfig | null;
  /** Per arm name, `infer.price` (per 1M input / output tokens) for its cost; an arm not named has no cost. */
  prices?: Record<string, TokenPrice>;
  /** The frozen plan (`phase5 plan --freeze`): contrasts it lacks are exploratory, out of the Holm family. */
  planLock?: import('../../src/plan/plan-lock').ReadLock | null;
  /** An arm whose lines failed on a larger share than this is marked not valid (default 0.01; analysis/score/failed-share.ts). */
  maxFailedShare?: number;
  /**
   * Called once the lines are scored: each arm's line counts, built on demand (analysis/score/line-counts.ts), for
   * the design document's files to take rather than score the lines again (analysis/stage.ts).
   */
  onLineCounts?: (counts: ArmsLineCounts) => void;
  /** Called after each arm is scored (activities heartbeat with it). */
  onProgress?: (done: number, total: number) => void;
  /** Arms already in memory (`phase5 score`: analysis/outside/): analysed instead of the folders under `<resultsDir>/arms/`. */
  loaded?: import('../inputs/arm-inputs').DiscoveredArms;
  /**
   * The rag arm's top-1 retrieval score by line key (analysis/inputs/records.ts `lineKey`) for a default study's
   * score bands; default: read from `<resultsDir>/arms/rag/inference_input.jsonl`; null: none.
   */
  ragTopScores?: ReadonlyMap<string, number> | null;
  /** A config without `study:`: read the default arms' folders (analysis/inputs/default-arms.ts), write no per-arm metrics.json (theirs are the design document's). */
  defaultArms?: DefaultArms;
}

/** What `onLineCounts` is given: how the lines were counted, and one arm's counts (null: no such arm). */
export interface ArmsLineCounts {
  /** The normalisation profiles, by name, in count order. */
  profiles: string[];
  collapseWhitespace: boolean;
  of: (arm: string) => ArmLineCounts | null;
}

/** `cmer` … `preference` (analysis/study/mer-figures.ts): the bounded figures, after the CER-based ones. */
export interface ArmMetrics extends MerFigures {
  lines: number;
  cer: number | null;
  cer_ci: [number, number] | null;
  wer: number | null;
  /** Bootstrap 95 % CI of the WER: lines resampled as for cer_ci (within each dataset when pooled), with a seed of its own. */
  wer_ci: [number, number] | null;
  /** Why cer_ci and wer_ci are null (too few clusters; analysis/stats/min-clusters.ts); null when they are given. */
  ci_reason: string | null;
  /** CER before the guard: `raw_text` cleaned (quotes, labels) but neither trimmed nor checked, where recorded; else = cer. */
  raw_cer: number | null;
  ocr_cer: number | null;
  failures: number;
  /** Present only when more than `infer.max_failed_share` of the lines failed (analysis/score/failed-share.ts): why no ΔCER holds. */
  invalid_reason?: string;
  guard: GuardRates | null;
  /** Lines the arm lacked, scored as the OCR text (missing_lines: ocr); 0 otherwise. */
  filled_lines: number;
  /** p_holm: from the planned contrast of this arm vs the baseline (null when it is not one, or out of the family). */
  vs_baseline: (PairedComparison & { p_holm: number | null }) | null;
  vs_ocr: PairedComparison;
  improved: number;
  unchanged: number;
  worsened: number;
  by_band: Record<OcrCerBand, BandCounts>;
  /**
   * Share of the lines whose retrieved context held their own normalised gold line (similarity ≥ 0.9,
   * src/retrieval/verbatim.ts), from the export; null for zero-shot arms and when the export did not record it.
   */
  verbatim_gold_rate: number | null;
  /**
   * Only for an arm with replicates (docs/statistics.md#replicates): `cer` above is their mean and `cer_ci`
   * resamples clusters and replicates; here each replicate's CER, replicate 0 first, and their standard deviation.
   */
  replicates?: ReplicateFigures;
}

export interface ReplicateFigures {
  n: number;
  /** The seed each replicate sent (null: none). */
  seeds: (number | null)[];
  cer: number[];
  /** Between-replicate standard deviation of the CER (n − 1 in the denominator). */
  cer_sd: number | null;
}

export interface ArmResult extends ArmMetrics {
  name: string;
  is_baseline: boolean;
  upper_bound: boolean;
  prompt: ArmInfo['prompt'];
  retrieval: ArmInfo['retrieval'];
  model: string | null;
  guard_config: Record<string, unknown> | null;
  datasets: Record<string, ArmMetrics>;
  /** Mean over datasets of each dataset's figure, with block-bootstrap CIs; null with one dataset. */
  macro: {
    cer: number | null;
    cer_ci: [number, number] | null;
    /** Why cer_ci is null (too few clusters); null when it is given. */
    ci_reason: string | null;
    vs_baseline: (MacroComparison & { p_holm: number | null }) | null;
    vs_ocr: MacroComparison | null;
  } | null;
  /** Guard effect, ΔCER by retrieval-score band and error classes (analysis/study/when.ts). */
  when: ArmWhen;
  /** Tokens, latency and cost over every record of every replicate (analysis/study/usage.ts). */
  usage: ArmUsage;
}

export interface ArmsAnalysis {
  schema: typeof ARMS_SCHEMA_ID;
  generated_at: string;
  baseline: string;
  /** `analysis.primary_metric`: what the planned contrasts measure. */
  primary_metric: import('./measure-contrasts').PrimaryMetric;
  datasets: string[];
  methods: ReturnType<typeof methodsNote>;
  /** Per dataset: how its lines cluster and how many clusters there are. */
  clusters: Record<string, { method: string; clusters: number }>;
  /** The planned contrasts, one Holm family (analysis/study/measure-contrasts.ts). */
  contrasts: ContrastResult[];
  skipped: ArmSkip[];
  warnings: string[];
  /** Leakage control: per dataset, what the corpus held out of its source; null when the caller did not say. */
  exclusions: DatasetExclusion[] | null;
  arms: ArmResult[];
  /** Per normalisation profile, every arm's CER and ΔCER (analysis/study/profiles.ts). */
  profiles: ReturnType<typeof armProfiles>;
  /** Files written, relative to resultsDir. */
  files: string[];
  /** The frozen plan against the results (analysis/plan/check.ts); only when a plan.lock.json exists. */
  plan_lock?: import('../plan/check').PlanCheck;
  /** ΔCER by gold passage in context and hit class (analysis/study/provenance.ts), attached by the analyze stage. */
  provenance?: import('./provenance').ProvenanceAnalysis;
  /**
   * The default arms' figures the design document's comparison files state and arms.json does not (ΔWER, the OCR
   * text's intervals; analysis/study/design-figures.ts); in memory only, never in arms.json.
   */
  design_figures?: import('./design-figures').DesignFigures;
  /** The default arms' per-line edit breakdowns and error changes the design files state (analysis/study/design-edits.ts); in memory only. */
  design_edits?: import('./design-edits').DesignEdits;
}
