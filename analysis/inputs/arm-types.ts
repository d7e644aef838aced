/** The shapes of a study arm as analysis/inputs/arm-inputs.ts reads it: its arm.json, its lines, its replicates. */
import type { CorrectionRecord } from '../../src/llm/records';

export const RETRIEVAL_MODES = ['dense', 'hybrid', 'random', 'gold_query', 'none', 'witness'] as const;

export interface ArmInfo {
  name: string;
  /** `external`: an outside system's outputs (`phase5 score`, analysis/outside/). */
  prompt: 'rag' | 'zero_shot' | 'external';
  retrieval: { mode: (typeof RETRIEVAL_MODES)[number]; top_k: number | null; fingerprint: string | null; k_group: string | null } | null;
  upper_bound: boolean;
  model: string | null;
  guard: Record<string, unknown> | null;
  /** Passes arm.json says the config asked for (1 without replicates). */
  replicates: number;
  /** arm.json's `prompt_prefix.share`: how much of its prompts a server's prefix cache could reuse (null: not measured). */
  prompt_prefix_share: number | null;
}

/** Lines whose retrieved context held the line's own gold text (src/retrieval/verbatim.ts), from the export. */
export interface VerbatimCounts {
  lines: number;
  hits: number;
}

/**
 * The verbatim-gold retrieval rate of the context an arm saw: per dataset from its export's
 * `retrieval_stats.json` when that is there, else only the pooled `verbatim_gold_rate` of arm.json.
 * Null for a zero-shot arm (it sees no context) and when neither file has it.
 */
export interface ArmVerbatim {
  rate: number | null;
  byDataset: Record<string, VerbatimCounts> | null;
}

export interface ArmLine {
  record: CorrectionRecord;
  /** The untouched model output (`raw_text`) when the guard recorded it. */
  rawText: string | null;
  guard: string | null;
  /** The model the server said it ran (`served_model`), where the record holds one. */
  servedModel?: string | null;
}

export interface LoadedArm {
  info: ArmInfo;
  dir: string;
  /** dataset → lines in file order (a repeated sample_id keeps its first line). */
  byDataset: Map<string, ArmLine[]>;
  duplicates: number;
  mtimeMs: number;
  verbatim: ArmVerbatim;
  /** Replicate 0 is the arm's own lines above; these are replicates 1 … R−1 (./arm-replicates.ts), with each one's seed. */
  replicates: LoadedReplicate[];
  /** Replicate folders with corrections beyond arm.json's `replicates` (a run that asked for more): left out. */
  extraReplicates: number[];
  /** The seed of replicate 0 (its replicate.json), null when it sent none. */
  seed: number | null;
}

/** One replicate r ≥ 1 of an arm: its lines, read as the arm's own are. */
export interface LoadedReplicate {
  replicate: number;
  seed: number | null;
  byDataset: Map<string, ArmLine[]>;
  duplicates: number;
  mtimeMs: number;
}

export interface ArmSkip {
  arm: string;
  reason: string;
}

export interface DiscoveredArms {
  arms: LoadedArm[];
  skipped: ArmSkip[];
}
