/**
 * Replicates of a study arm (`replicates: R`, docs/outputs.md#replicates): R full passes over the arm's lines,
 * replicate r sending the seed `base + r` (base: the seed of the arm's resolved decoding, 0 when none is set). Replicate 0
 * writes where an arm without replicates writes (`<arm>/corrections.jsonl`), replicate r ≥ 1 under
 * `<arm>/replicates/<r>/`. Each replicate's folder holds `replicate.json` (its index and seed), so a re-run
 * never resumes one replicate's output, or an output made with another seed, as another.
 *
 *   for (const run of replicateRuns(arm)) await runArm(options, run, hooks, openBackend);
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic } from '../../io/jsonl';
import type { Config } from '../../config/schema';
import type { BackendConfig } from '../../llm/index';
import { resolveDecoding } from '../../llm/decoding';
import { armRequestDecoding } from '../infer/backend';
import type { ArmRun } from './types';
import { UserInputError } from '../shared/types';

export { replicateKey } from './replicate-key';

/** The seed an arm's replicates count from: the seed of its resolved decoding (arm over `infer.decoding`), else 0. */
export function armBaseSeed(config: Config): number {
  return armRequestDecoding(config).seed ?? 0;
}

/** Where replicate r of an arm writes its corrections (replicate 0: the arm's own file). */
export function replicateOutput(armOutput: string, r: number): string {
  return r === 0 ? armOutput : path.join(path.dirname(armOutput), 'replicates', String(r), 'corrections.jsonl');
}

/**
 * The backend of one replicate: its decoding with the replicate's seed (src/llm/decoding.ts requestFields sends
 * it). Only replicated arms get here, so other arms' requests keep their bytes.
 */
export function withSeed(cfg: BackendConfig, seed: number | undefined): BackendConfig {
  if (seed === undefined) return cfg;
  const decoding =
    cfg.decoding ??
    resolveDecoding(undefined, { temperature: cfg.type === 'openai' ? (cfg.temperature ?? 0) : 0, maxTokens: cfg.maxTokens ?? 512 });
  return { ...cfg, decoding: { ...decoding, seed } };
}

/** One run per replicate of the arm (a single one, the arm itself, without replicates). */
export function replicateRuns(arm: ArmRun): ArmRun[] {
  const n = arm.replicates ?? 1;
  return n <= 1 ? [arm] : Array.from({ length: n }, (_, r) => replicateRun(arm, r));
}

/** The arm's run of replicate r: its own output and seed. */
export function replicateRun(arm: ArmRun, r: number): ArmRun {
  const n = arm.replicates ?? 1;
  if (r === 0 && n <= 1) return arm;
  if (r < 0 || r >= n) throw new UserInputError(`arm "${arm.name}" has ${n} replicate(s); there is no replicate ${r}`);
  const seed = (arm.baseSeed ?? 0) + r;
  return { ...arm, replicate: r, seed, output: replicateOutput(arm.output, r), backend: () => withSeed(arm.backend(), seed) };
}

/** What a replicate's folder records about the run that made its output. */
interface ReplicateMarker {
  arm: string;
  replicate: number;
  seed: number | null;
}

function markerFile(output: string): string {
  return path.join(path.dirname(output), 'replicate.json');
}

function markerOf(run: ArmRun): ReplicateMarker {
  return { arm: run.name, replicate: run.replicate ?? 0, seed: run.seed ?? null };
}

/**
 * Before a run writes to its output: an output made by another replicate or with another seed (as its
 * replicate.json says; none = replicate 0 without a seed) is refused, unless `force` starts it over. Runs with
 * a seed then record theirs; a run without one leaves the folder as an arm without replicates has it.
 */
export function claimReplicateOutput(run: ArmRun, force: boolean): void {
  const want = markerOf(run);
  const file = markerFile(run.output);
  const had: ReplicateMarker = existsSync(file)
    ? { arm: run.name, replicate: 0, seed: null, ...(JSON.parse(readFileSync(file, 'utf8')) as Partial<ReplicateMarker>) }
    : { arm: run.name, replicate: 0, seed: null };
  // The output, or the parts a sharded run left before its merge.
  const hasRecords = (existsSync(run.output) && statSync(run.output).size > 0) || existsSync(`${run.output}.parts`);
  if (!force && hasRecords && (had.replicate !== want.replicate || had.seed !== want.seed))
    throw new UserInputError(
      `${run.output} holds replicate ${had.replicate} of arm "${run.name}" with seed ${had.seed ?? '(none)'}, ` +
        `but this run is replicate ${want.replicate} with seed ${want.seed ?? '(none)'}; rerun with --force to redo it, or move the file away`,
    );
  if (want.seed === null && !existsSync(file)) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeJsonAtomic(file, want);
}
