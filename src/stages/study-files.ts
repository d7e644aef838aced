/**
 * The files a study's export leaves beside its records: per shared export `retrieval_stats.json` (mode, k, the
 * arms reading it, the verbatim-gold retrieval rate), and per arm `<results>/arms/<arm>/arm.json` plus
 * `inference_input.jsonl` — a relative symlink to the shared export (a copy where links cannot be made).
 */
import { copyFileSync, lstatSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { readJsonlAll, writeJsonAtomic } from '../io/jsonl';
import { VERBATIM_THRESHOLD, verbatimGoldRate, type VerbatimRate } from '../retrieval/verbatim';
import type { ArmRun, ExportGroup } from './arms';

/** What one shared export holds, and how often its context contains the line's own gold text. */
export interface SharedExport {
  fingerprint: string;
  mode: ExportGroup['mode'];
  top_k: number;
  upper_bound: boolean;
  arms: string[];
  path: string;
  records: number;
  /** sha256 of the file at `path` as the merge wrote it (not in retrieval_stats.json: the attach check reads it). */
  sha256: string;
  verbatim_gold: VerbatimRate & { threshold: number; by_dataset: Record<string, VerbatimRate> };
}

/** `<dir>/retrieval_stats.json` for a merged shared export. */
export async function writeSharedExportStats(
  group: ExportGroup,
  merged: { path: string; records: number; sha256: string },
): Promise<SharedExport> {
  const records = await readJsonlAll<{ dataset: string; gt_text: string; retrieval_context: string }>(merged.path);
  const stats: SharedExport = {
    fingerprint: group.fingerprint,
    mode: group.mode,
    top_k: group.config.phase5.retrieval.top_k,
    upper_bound: group.mode === 'gold_query',
    arms: group.arms,
    path: merged.path,
    records: merged.records,
    sha256: merged.sha256,
    verbatim_gold: { threshold: VERBATIM_THRESHOLD, ...verbatimGoldRate(records) },
  };
  const { sha256: _digest, ...file } = stats;
  writeJsonAtomic(path.join(group.dir, 'retrieval_stats.json'), { ...file, path: path.basename(merged.path) });
  return stats;
}

/** arm.json as the contract has it (plus the verbatim-gold rate of the context it sees; null for a zero-shot arm). */
export function armJson(arm: ArmRun, shared: SharedExport | undefined): Record<string, unknown> {
  return {
    name: arm.name,
    prompt: arm.prompt,
    retrieval: {
      mode: arm.retrieval.mode,
      top_k: arm.retrieval.top_k,
      fingerprint: arm.retrieval.fingerprint,
      k_group: arm.retrieval.k_group ?? null,
    },
    upper_bound: arm.upperBound,
    model: arm.model,
    guard: arm.guard ?? null,
    verbatim_gold_rate: arm.prompt === 'zero_shot' ? null : (shared?.verbatim_gold.rate ?? null),
  };
}

/** Every arm's dir: arm.json and its inference_input.jsonl pointing at the export of its fingerprint. */
export function writeArmDirs(arms: readonly ArmRun[], exports: readonly SharedExport[]): void {
  for (const arm of arms) {
    const shared = exports.find((e) => e.fingerprint === arm.retrieval.fingerprint);
    mkdirSync(path.dirname(arm.input), { recursive: true });
    writeJsonAtomic(path.join(path.dirname(arm.input), 'arm.json'), armJson(arm, shared));
    if (shared) linkOrCopy(shared.path, arm.input);
  }
}

/** A relative symlink `link` → `target`; a copy on platforms (or filesystems) without symlinks. */
export function linkOrCopy(target: string, link: string): void {
  if (lstatSync(link, { throwIfNoEntry: false })) rmSync(link, { force: true });
  try {
    symlinkSync(path.relative(path.dirname(link), target), link);
  } catch {
    copyFileSync(target, link);
  }
}
