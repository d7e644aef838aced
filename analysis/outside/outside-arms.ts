/**
 * The arms of `phase5 score`: one per outside system (or one per declared group of runs, the runs its
 * replicates), and `ocr`, the OCR text itself, the baseline every system is compared with. The lines are held in
 * memory as the analysis reads an arm's (analysis/inputs/arm-inputs.ts `LoadedArm`); nothing is written for them.
 * An arm's `prompt` is `external`: the analysis knows nothing of how its outputs were made.
 */
import path from 'node:path';
import type { CorrectionRecord } from '../../src/llm/records';
import { UserInputError } from '../../src/stages/shared/types';
import type { ArmLine, LoadedArm } from '../inputs/arm-inputs';
import { referenceKey, type ReferenceLine, type SystemOutput } from './types';

export const OCR_ARM = 'ocr';

export interface OutsideArms {
  arms: LoadedArm[];
  warnings: string[];
}

/** Lines of one system on every reference line, by dataset in reference order; a line it lacks is its OCR text (counted). */
function systemLines(refs: readonly ReferenceLine[], sys: SystemOutput | null): { byDataset: Map<string, ArmLine[]>; missing: number } {
  const byDataset = new Map<string, ArmLine[]>();
  let missing = 0;
  for (const r of refs) {
    const got = sys ? sys.outputs.get(referenceKey(r.dataset, r.sample_id)) : r.ocr_text;
    if (got === undefined) missing++;
    const text = got ?? r.ocr_text;
    // What the analysis reads of a record; nothing about how the output was made is known, so nothing is stated.
    const record: CorrectionRecord = {
      sample_id: r.sample_id,
      dataset: r.dataset,
      prompt_type: 'zero_shot',
      prompt_version: 'external',
      model: sys?.name ?? OCR_ARM,
      ocr_text: r.ocr_text,
      gt_text: r.gt_text,
      corrected_text: text,
      raw_output: text,
      latency_ms: null,
      prompt_tokens: null,
      completion_tokens: null,
      error: null,
    };
    let list = byDataset.get(r.dataset);
    if (!list) byDataset.set(r.dataset, (list = []));
    list.push({ record, rawText: null, guard: null });
  }
  return { byDataset, missing };
}

function arm(resultsDir: string, name: string, replicates: number, mtimeMs: number, byDataset: Map<string, ArmLine[]>): LoadedArm {
  return {
    info: {
      name,
      prompt: 'external',
      retrieval: null,
      upper_bound: false,
      model: null,
      guard: null,
      replicates,
      prompt_prefix_share: null,
    },
    dir: path.join(resultsDir, 'arms', name),
    byDataset,
    duplicates: 0,
    mtimeMs,
    verbatim: { rate: null, byDataset: null },
    replicates: [],
    extraReplicates: [],
    seed: null,
  };
}

/** One line of what did not pair up: reference lines a system lacks, its records that match no reference line, its failed ones. */
function matchLine(s: SystemOutput, missing: number, refs: number, unmatched: number): string {
  const failed = s.failed ? `, ${s.failed} failed record(s) (error set)` : '';
  return `system ${s.name}: ${missing} of ${refs} reference line(s) missing${failed}, scored as the OCR text; ${unmatched} record(s) matched no reference line, left out`;
}

/**
 * `groups`: arm name → the systems that are its replicates, replicate 0 first. `excluded`: keys of the reference
 * documents left out (flagged), whose outputs are not counted as unmatched.
 */
export function outsideArms(
  resultsDir: string,
  refs: readonly ReferenceLine[],
  systems: readonly SystemOutput[],
  groups: Record<string, string[]>,
  mtimeMs: number,
  excluded?: ReadonlySet<string>,
): OutsideArms {
  const warnings: string[] = [];
  const byName = new Map(systems.map((s) => [s.name, s]));
  if (byName.has(OCR_ARM))
    throw new UserInputError(`--system ${OCR_ARM}=…: "${OCR_ARM}" names the OCR text's own arm; call the system something else`);
  const refKeys = new Set(refs.map((r) => referenceKey(r.dataset, r.sample_id)));
  const lines = (s: SystemOutput) => {
    const l = systemLines(refs, s);
    const unmatched = [...s.outputs.keys()].filter((k) => !refKeys.has(k) && !excluded?.has(k)).length;
    if (l.missing || unmatched || s.failed) warnings.push(matchLine(s, l.missing, refs.length, unmatched));
    if (s.imputed)
      warnings.push(`system ${s.name}: ${s.imputed} output(s) missing, "None" or empty, scored as the OCR text (HIPE-OCRepair's rule)`);
    return l.byDataset;
  };
  const grouped = new Set(Object.values(groups).flat());
  const arms = [arm(resultsDir, OCR_ARM, 1, mtimeMs, systemLines(refs, null).byDataset)];
  for (const s of systems) if (!grouped.has(s.name)) arms.push(arm(resultsDir, s.name, 1, mtimeMs, lines(s)));
  for (const [name, members] of Object.entries(groups)) {
    if (byName.has(name) || name === OCR_ARM) throw new UserInputError(`--replicates ${name}=…: "${name}" is already a system's name`);
    const runs = members.map((m) => {
      const s = byName.get(m);
      if (!s) throw new UserInputError(`--replicates ${name}=${members.join(',')}: no --system named "${m}"`);
      return lines(s);
    });
    const a = arm(resultsDir, name, runs.length, mtimeMs, runs[0]);
    a.replicates = runs.slice(1).map((byDataset, i) => ({ replicate: i + 1, seed: null, byDataset, duplicates: 0, mtimeMs }));
    arms.push(a);
  }
  arms.sort((a, b) => (a.info.name < b.info.name ? -1 : a.info.name > b.info.name ? 1 : 0));
  return { arms, warnings };
}
