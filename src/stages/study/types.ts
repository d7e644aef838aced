/**
 * The types of a study plan (./plan.ts): an arm as it runs, the export groups arms share and the witness
 * indexes. Types only, so every module of the plan and of the stages can name them without importing the plan.
 */
import type { Config } from '../../config/schema';
import type { GuardSettings } from '../../llm/guard';
import type { BackendConfig, PromptKind } from '../../llm/index';
import type { PromptTemplate } from '../../prompts/templates';
import type { StagePaths } from '../build/retriever';
import type { CorrectorRun } from '../infer/corrector-arm';

/** How an arm's context is found: the configured retriever (dense, or hybrid when `hybrid.enabled`), a placebo, an oracle, or none. */
export type RetrievalMode = 'dense' | 'hybrid' | 'random' | 'gold_query' | 'none' | 'witness';

/** The over-correction guard of an arm (src/llm/guard.ts). */
export type ArmGuard = GuardSettings;

export type RetrievalSettings = Config['retrieval'];

export interface ArmRetrieval {
  mode: RetrievalMode;
  top_k: number;
  /** Stable hash of the effective retrieval settings, mode and corpus/index identity: arms with equal fingerprints share one export. */
  fingerprint: string;
  /**
   * Hash of everything that shapes the arm's corrections except `top_k` (retrieval settings and mode, corpus and
   * index, prompt, the effective `infer` block, guard): arms with equal k_group differ only in k, so the
   * analysis may draw them as one gain-vs-k series.
   */
  k_group?: string;
  /** retrieval with the arm's overrides applied. */
  settings: RetrievalSettings;
}

/** What an arm is for in the comparison: the baseline, a method, a placebo (random context) or an upper bound (oracle). */
export type ArmRole = 'baseline' | 'method' | 'placebo' | 'upper_bound';

export interface ArmRun {
  name: string;
  role: ArmRole;
  /** The kind of prompt: `rag` (it shows the record's context) or `zero_shot` (it does not). */
  prompt: PromptKind;
  /** The prompt's template: a built-in (`rag` p5v1, `zero_shot` v1, `rag_cache` p5v1c) or one of `study.prompts` (absent: `prompt`'s built-in). */
  template?: PromptTemplate;
  /** The inference_input.jsonl this arm reads. */
  input: string;
  /** Its corrections.jsonl. */
  output: string;
  /** How to reach the arm's LLM (its `infer` overrides applied); checked lazily, so importing needs no model. */
  backend: () => BackendConfig;
  /** Model name recorded in arm.json. */
  model: string;
  guard?: ArmGuard;
  /** Oracle arms (gold text as the query) are an upper bound, never a method. */
  upperBound: boolean;
  retrieval: ArmRetrieval;
  /** The config with the arm's `retrieval` and `infer` overrides applied (what export and infer read for this arm). */
  config: Config;
  /** A study arm's own folder, `<results>/arms/<arm>/` (with arm.json); absent for the default arms, whose folder holds no arm.json. */
  dir?: string;
  /** A non-LLM corrector (docs/correctors.md); absent for an LLM arm. */
  corrector?: CorrectorRun;
  /** Full passes over the arm's lines (`replicates`, default 1; ./replicates.ts). */
  replicates?: number;
  /** The seed replicate 0 sends; replicate r sends baseSeed + r (default 0). */
  baseSeed?: number;
  /** Set on one replicate's run (./replicates.ts replicateRun): which replicate, and the seed its requests carry. */
  replicate?: number;
  seed?: number;
}

/** One export per distinct retrieval fingerprint, with the (effective) config that makes it and the arms that read it. */
export interface ExportGroup {
  fingerprint: string;
  mode: Exclude<RetrievalMode, 'none'>;
  config: Config;
  arms: string[];
  /** `<results>/exports/<fingerprint>/`: inference_input.jsonl, retrieval_stats.json, shards. */
  dir: string;
  /** The corpus and index it retrieves from. */
  paths: StagePaths;
}

/** One witness index (`retrieval.mode: witness`), `<results>/witness/<fingerprint>/`. */
export interface WitnessIndexPlan {
  fingerprint: string;
  dir: string;
  /** The effective config of the first arm that uses it (its `retrieval.witness` settings). */
  config: Config;
  arms: string[];
}
