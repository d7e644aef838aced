/**
 * Study arms: what one arm of a study runs — which prompt, on which exported input, into which corrections
 * file, with which LLM (the arm's `infer` overrides applied), guard and retrieval. The infer stage runs arms;
 * the export stage exports once per distinct retrieval fingerprint; the analysis reads every arm.
 *
 * Without `study:` in the config the arms are exactly today's two conditions, at today's paths:
 * `rag` → <results>/phase5/corrections.jsonl and `zero_shot` → <results>/phase2/corrections.jsonl, both reading
 * <results>/phase5/inference_input.jsonl, in `infer.conditions` order (`--phase2-dir` leaves zero_shot out).
 *
 *   for (const arm of armsFrom(config, {})) await runArm(options, arm, hooks, openBackend);
 */
import type { GuardSettings } from '../llm/guard';
import path from 'node:path';
import type { Config } from '../config/schema';
import type { BackendConfig, Condition } from '../llm';
import { sha256Text } from '../util/hash';
import { allArmNames, armNames } from './arm-names';
import { stagePaths } from './build';
import { backendConfig, modelName } from './backend';
import { checkedResultDirs } from './results-dir';
import { UserInputError, type RunOptions } from './types';

export { armNames };

/** How an arm's context is found: the configured retriever (dense, or hybrid when `hybrid.enabled`), a placebo, an oracle, or none. */
export type RetrievalMode = 'dense' | 'hybrid' | 'random' | 'gold_query' | 'none';

/** The over-correction guard of an arm (src/llm/guard.ts). */
export type ArmGuard = GuardSettings;

export type RetrievalSettings = Config['phase5']['retrieval'];

export interface ArmRetrieval {
  mode: RetrievalMode;
  top_k: number;
  /** Stable hash of the effective retrieval settings, mode and corpus/index identity: arms with equal fingerprints share one export. */
  fingerprint: string;
  /** phase5.retrieval with the arm's overrides applied. */
  settings: RetrievalSettings;
}

export interface ArmRun {
  name: string;
  /** The prompt: `rag` (p5v1 with the record's context) or `zero_shot` (v1). */
  prompt: Condition;
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
}

/** Every arm the config declares, in order (without `study:`: today's conditions; `--phase2-dir` leaves zero_shot out). */
export function armsFrom(config: Config, cli: RunOptions): ArmRun[] {
  const declared = allArmNames(config);
  if (cli.arm && !declared.includes(cli.arm)) throw new UserInputError(`unknown arm "${cli.arm}" (--arm) — the study has: ${declared.join(', ')}`);
  const dirs = checkedResultDirs(config);
  const input = path.join(dirs.phase5, 'inference_input.jsonl');
  const outputs: Record<Condition, string> = { rag: path.join(dirs.phase5, 'corrections.jsonl'), zero_shot: path.join(dirs.phase2, 'corrections.jsonl') };
  return armNames(config, cli).map((name) => {
    const prompt = name as Condition;
    const retrieval = armRetrieval(config, cli, config.phase5.retrieval, prompt === 'zero_shot' ? 'none' : undefined);
    return { name, prompt, input, output: outputs[prompt], backend: () => backendConfig(config), model: modelName(config), upperBound: false, retrieval, config };
  });
}

/** The arm named `name` among `arms`, or an error listing the names there are. */
export function findArm(arms: readonly ArmRun[], name: string): ArmRun {
  const arm = arms.find((a) => a.name === name);
  if (!arm) throw new UserInputError(`unknown arm "${name}" — the study has: ${arms.map((a) => a.name).join(', ') || '(none)'}`);
  return arm;
}

/** The effective retrieval of an arm: mode (dense/hybrid from the settings unless given), top_k and fingerprint. */
export function armRetrieval(config: Config, cli: RunOptions, settings: RetrievalSettings, mode?: Exclude<RetrievalMode, 'hybrid'>): ArmRetrieval {
  const effective: RetrievalMode = mode === undefined || mode === 'dense' ? (settings.hybrid.enabled ? 'hybrid' : 'dense') : mode;
  return { mode: effective, top_k: settings.top_k, fingerprint: retrievalFingerprint(config, cli, settings, effective), settings };
}

/**
 * Stable hash (16 hex) of what decides an export's records: the retrieval settings, the mode, the corpus and
 * index (paths and the corpus seed, which seeds the placebo), the embedding model and the dataset selection.
 */
export function retrievalFingerprint(config: Config, cli: RunOptions, settings: RetrievalSettings, mode: RetrievalMode): string {
  const paths = stagePaths(config, cli);
  return sha256Text(
    stableJson({
      mode,
      retrieval: settings,
      corpus: paths.corpus,
      index: paths.index,
      corpus_seed: config.phase5.corpus.seed,
      embedding_model: config.rag.embedding_model,
      embedding: config.rag.embedding,
    }),
  ).slice(0, 16);
}

/** JSON with object keys sorted at every level: equal settings give equal text whatever the key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
