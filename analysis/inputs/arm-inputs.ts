/**
 * Finding and reading the study arms: `<results>/arms/<arm>/arm.json` + `corrections.jsonl` (the
 * study-arms layout, docs/study-arms.md). A folder without either file is a counted skip shown to the
 * user; a malformed arm.json or correction line is an error naming the file, line and field.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError, type CorrectionRecord } from '../../src/llm/records';
import { UserInputError } from '../../src/stages/shared/types';
import { cmpStr } from '../format';
import { loadCorrections } from './arm-corrections';
import { loadReplicates, replicateSeed } from '../study/replicates';
import { defaultArmInfo, exportFingerprint, type DefaultArms } from './default-arms';

export const RETRIEVAL_MODES = ['dense', 'hybrid', 'random', 'gold_query', 'none', 'witness'] as const;

/** arm.json as the arms stage writes it; unknown keys are kept out of the analysis but allowed. */
export const ArmJsonSchema = z.object({
  name: z.string().min(1),
  prompt: z.enum(['rag', 'zero_shot']),
  retrieval: z
    .object({
      mode: z.enum(RETRIEVAL_MODES),
      top_k: z.number().int().nonnegative().nullish(),
      fingerprint: z.string().nullish(),
      k_group: z.string().nullish(),
    })
    .nullish(),
  upper_bound: z.boolean().optional(),
  model: z.string().nullish(),
  guard: z.record(z.string(), z.unknown()).nullish(),
  verbatim_gold_rate: z.number().min(0).max(1).nullish(),
  /** An arm with replicates (docs/outputs.md#replicates): how many passes the config asked for. */
  replicates: z.number().int().positive().optional(),
  /** The share of its prompts a prefix cache could reuse (src/prompts/prefix-share.ts), written by infer. */
  prompt_prefix: z.object({ share: z.number().min(0).max(1).nullable() }).nullish(),
});

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

export function armsRoot(resultsDir: string): string {
  return path.join(resultsDir, 'arms');
}

/**
 * Every arm folder under `<results>/arms/`, in code-unit order; folders without arm.json or corrections are skipped.
 * With `defaultArms` (a config without `study:`), the default arms' folders `rag/` and `zero_shot/`, which hold no
 * arm.json, are read with the settings ./default-arms.ts gives them.
 */
export async function discoverArms(resultsDir: string, datasets?: readonly string[], defaultArms?: DefaultArms): Promise<DiscoveredArms> {
  const root = armsRoot(resultsDir);
  if (!existsSync(root)) return { arms: [], skipped: [] };
  const arms: LoadedArm[] = [];
  const skipped: ArmSkip[] = [];
  const dirs = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() || d.isSymbolicLink())
    .map((d) => d.name)
    .sort(cmpStr);
  for (const name of dirs) {
    const dir = path.join(root, name);
    if (!statSync(dir).isDirectory()) continue;
    const info = defaultArms && !existsSync(path.join(dir, 'arm.json')) ? defaultArmInfo(name, dir, defaultArms) : null;
    if (info && existsSync(path.join(dir, 'corrections.jsonl'))) arms.push(await loadDefaultArm(resultsDir, dir, info, datasets));
    else if (!existsSync(path.join(dir, 'arm.json'))) skipped.push({ arm: name, reason: `no arm.json in ${dir}` });
    else if (!existsSync(path.join(dir, 'corrections.jsonl')))
      skipped.push({ arm: name, reason: `no corrections.jsonl in ${dir} (not inferred yet)` });
    else arms.push(await loadArm(resultsDir, dir, datasets));
  }
  return { arms, skipped };
}

/** A JSON file read and checked against `schema`; a one-line error naming the file when it is not valid. */
function readJsonAs<S extends z.ZodTypeAny>(file: string, schema: S): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserInputError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw new UserInputError(`${file}: ${describeZodError(r.error)}`);
  return r.data;
}

function readArmInfo(dir: string): { info: ArmInfo; verbatimRate: number | null } {
  const file = path.join(dir, 'arm.json');
  const v = readJsonAs(file, ArmJsonSchema);
  if (v.name !== path.basename(dir)) throw new UserInputError(`${file}: name "${v.name}" differs from its folder "${path.basename(dir)}"`);
  const info: ArmInfo = {
    name: v.name,
    prompt: v.prompt,
    retrieval: v.retrieval
      ? {
          mode: v.retrieval.mode,
          top_k: v.retrieval.top_k ?? null,
          fingerprint: v.retrieval.fingerprint ?? null,
          k_group: v.retrieval.k_group ?? null,
        }
      : null,
    upper_bound: v.upper_bound ?? v.retrieval?.mode === 'gold_query',
    model: v.model ?? null,
    guard: v.guard ?? null,
    replicates: v.replicates ?? 1,
    prompt_prefix_share: v.prompt_prefix?.share ?? null,
  };
  return { info, verbatimRate: v.verbatim_gold_rate ?? null };
}

const VerbatimStatsSchema = z.object({
  verbatim_gold: z.object({
    by_dataset: z.record(z.string(), z.object({ lines: z.number().int().nonnegative(), hits: z.number().int().nonnegative() })),
  }),
});

/** The per-dataset verbatim-gold counts of `<results>/exports/<fingerprint>/retrieval_stats.json`; null without the file. */
function readVerbatimStats(resultsDir: string, fingerprint: string | null): Record<string, VerbatimCounts> | null {
  if (!fingerprint) return null;
  const file = path.join(resultsDir, 'exports', fingerprint, 'retrieval_stats.json');
  if (!existsSync(file)) return null;
  const stats = readJsonAs(file, VerbatimStatsSchema);
  return Object.fromEntries(Object.entries(stats.verbatim_gold.by_dataset).map(([ds, c]) => [ds, { lines: c.lines, hits: c.hits }]));
}

function armVerbatim(resultsDir: string, info: ArmInfo, rate: number | null, fingerprint: string | null): ArmVerbatim {
  if (info.prompt === 'zero_shot' || info.retrieval?.mode === 'none') return { rate: null, byDataset: null };
  return { rate, byDataset: readVerbatimStats(resultsDir, fingerprint) };
}

async function loadArm(resultsDir: string, dir: string, datasets?: readonly string[]): Promise<LoadedArm> {
  const { info, verbatimRate } = readArmInfo(dir);
  return loadArmWith(resultsDir, dir, info, verbatimRate, datasets);
}

async function loadDefaultArm(resultsDir: string, dir: string, info: ArmInfo, datasets?: readonly string[]): Promise<LoadedArm> {
  return loadArmWith(resultsDir, dir, info, null, datasets, exportFingerprint(dir));
}

async function loadArmWith(
  resultsDir: string,
  dir: string,
  info: ArmInfo,
  verbatimRate: number | null,
  datasets?: readonly string[],
  fingerprint = info.retrieval?.fingerprint ?? null,
): Promise<LoadedArm> {
  const own = await loadCorrections(path.join(dir, 'corrections.jsonl'), datasets);
  const replicates = await loadReplicates(dir, info.replicates, datasets);
  return { info, dir, ...own, verbatim: armVerbatim(resultsDir, info, verbatimRate, fingerprint), ...replicates, seed: replicateSeed(dir) };
}
