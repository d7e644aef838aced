/**
 * Finding and reading the study arms: `<results>/arms/<arm>/arm.json` + `corrections.jsonl` (the
 * study-arms layout, docs/study-arms.md). A folder without either file is a counted skip shown to the
 * user; a malformed arm.json or correction line is an error naming the file, line and field.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../../src/llm/record-files';
import { UserInputError } from '../../src/stages/shared/types';
import { cmpStr } from '../format';
import { loadCorrections } from './arm-corrections';
import { loadReplicates, replicateSeed } from '../study/replicates';
import { defaultArmInfo, exportFingerprint, type DefaultArms } from './default-arms';
import {
  RETRIEVAL_MODES,
  type ArmInfo,
  type ArmSkip,
  type ArmVerbatim,
  type DiscoveredArms,
  type LoadedArm,
  type VerbatimCounts,
} from './arm-types';

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

export { RETRIEVAL_MODES } from './arm-types';
export type { ArmInfo, ArmLine, ArmSkip, ArmVerbatim, DiscoveredArms, LoadedArm, LoadedReplicate, VerbatimCounts } from './arm-types';

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
