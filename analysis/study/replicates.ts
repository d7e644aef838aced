/**
 * Replicates of an arm (docs/outputs.md#replicates, docs/statistics.md#replicates): replicate 0 is the arm's own
 * corrections.jsonl, replicate r ≥ 1 is `<arm>/replicates/<r>/corrections.jsonl`, each folder's replicate.json
 * holding its seed. The analysis scores every replicate on the study's line set and works on the per-line
 * mean of their edits: with the same gold text on every replicate, Σ mean edits / Σ gold characters is the
 * mean of the replicates' CERs, so the arm's CER, its contrasts and every count built on edits use replicate
 * means, and a replicate never becomes an arm of its own.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ArmRow } from '../score/arm-line';
import { loadCorrections } from '../inputs/arm-corrections';
import type { LoadedArm, LoadedReplicate } from '../inputs/arm-types';

/** The seed a replicate's folder records (replicate.json), null when it has none (a run without a seed). */
export function replicateSeed(dir: string): number | null {
  const file = path.join(dir, 'replicate.json');
  if (!existsSync(file)) return null;
  const seed = (JSON.parse(readFileSync(file, 'utf8')) as { seed?: unknown }).seed;
  return typeof seed === 'number' ? seed : null;
}

/**
 * The folders of replicates 1 … with corrections, in replicate order: those below `count` (arm.json's
 * `replicates`) as `used`, the others — left from a run that asked for more — as `extra` (left out, with a warning).
 */
export function replicateFolders(dir: string, count: number): { used: { replicate: number; dir: string }[]; extra: number[] } {
  const root = path.join(dir, 'replicates');
  if (!existsSync(root)) return { used: [], extra: [] };
  const numbers = readdirSync(root)
    .filter((n) => /^[1-9]\d*$/.test(n) && existsSync(path.join(root, n, 'corrections.jsonl')))
    .map(Number)
    .sort((a, b) => a - b);
  return {
    used: numbers.filter((r) => r < count).map((replicate) => ({ replicate, dir: path.join(root, String(replicate)) })),
    extra: numbers.filter((r) => r >= count),
  };
}

/** Replicates 1 … count − 1 of the arm in `dir` that have corrections, in replicate order (see replicateFolders). */
export async function loadReplicates(
  dir: string,
  count: number,
  datasets?: readonly string[],
): Promise<{ replicates: LoadedReplicate[]; extraReplicates: number[] }> {
  const { used, extra } = replicateFolders(dir, count);
  const replicates: LoadedReplicate[] = [];
  for (const { replicate, dir: folder } of used) {
    const lines = await loadCorrections(path.join(folder, 'corrections.jsonl'), datasets);
    replicates.push({ replicate, seed: replicateSeed(folder), ...lines });
  }
  return { replicates, extraReplicates: extra };
}

/** The name a replicate r ≥ 1 goes by in alignment and warnings (`#` is not allowed in arm names). */
export function replicateName(arm: string, replicate: number): string {
  return `${arm}#${replicate}`;
}

/** Every replicate r ≥ 1 of the arm as an arm of its own, to be aligned on the study's lines like the arms are. */
export function replicatesAsArms(arm: LoadedArm): LoadedArm[] {
  return arm.replicates.map((r) => ({
    ...arm,
    info: { ...arm.info, name: replicateName(arm.info.name, r.replicate) },
    byDataset: r.byDataset,
    duplicates: r.duplicates,
    mtimeMs: r.mtimeMs,
    replicates: [],
    extraReplicates: [],
    seed: r.seed,
  }));
}

/** Seeds of every replicate, replicate 0 first. */
export function replicateSeeds(arm: LoadedArm): (number | null)[] {
  return [arm.seed, ...arm.replicates.map((r) => r.seed)];
}

/**
 * Per line, the mean over replicates of the edits (character, word, raw); the OCR edits and gold are every
 * replicate's. A line counts as failed or filled when it is in any replicate; the guard outcome is replicate 0's.
 */
export function meanRows(replicates: ArmRow[][]): ArmRow[] {
  const [first] = replicates;
  if (replicates.length === 1) return first;
  const n = replicates.length;
  return first.map((row, i) => {
    let ce = 0,
      we = 0,
      raw = 0,
      ct = 0,
      wt = 0,
      failed = false,
      filled = false;
    for (const rows of replicates) {
      ce += rows[i].ce;
      we += rows[i].we;
      raw += rows[i].raw_ce;
      ct += rows[i].ct;
      wt += rows[i].wt;
      failed ||= rows[i].failed;
      filled ||= rows[i].filled;
    }
    return { ...row, ce: ce / n, we: we / n, raw_ce: raw / n, ct: ct / n, wt: wt / n, failed, filled };
  });
}

/** Per line: whether the replicates' corrected texts differ (the line explorer's "replicates disagree"). */
export function disagreeingLines(texts: string[][]): boolean[] {
  const [first] = texts;
  return first.map((t, i) => texts.some((other) => other[i] !== t));
}
