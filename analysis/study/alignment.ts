/**
 * The one line set every arm comparison runs on. Every (dataset, sample_id) any arm has is a line of the
 * study, in dataset order and, within a dataset, in the baseline arm's order (lines only other arms have come
 * after, in arm order). An arm that lacks a line fails the analysis with a one-line error naming the arm, the
 * dataset and the count — or, with `analysis.missing_lines: ocr`, the line is scored as its OCR text and counted
 * (`filled_lines` of the arm, shown in the report). Never a silent drop: two arms are only ever compared on the
 * same lines.
 */
import type { CorrectionRecord } from '../../src/llm/records';
import { UserInputError } from '../../src/stages/shared/types';
import type { ArmLine, LoadedArm } from '../inputs/arm-inputs';
import { cmpStr } from '../format';
import { lineKey } from '../inputs/records';

export const MISSING_LINES = ['error', 'ocr'] as const;
export type MissingLines = (typeof MISSING_LINES)[number];

export interface AlignedLine extends ArmLine {
  /** True when the arm had no such line and it is scored as the OCR text (missing_lines: ocr). */
  filled: boolean;
}

export interface AlignedArms {
  /** Dataset of each line, in line order (datasets contiguous, code-unit order). */
  datasets: string[];
  /** [from, to) line range of each dataset. */
  ranges: Map<string, [number, number]>;
  sampleIds: string[];
  /** Arm name → its line for every study line. */
  lines: Map<string, AlignedLine[]>;
  /** Arm name → lines scored as the OCR text because the arm lacked them, per dataset (only non-zero). */
  filled: Map<string, Record<string, number>>;
}

/** A line the arm lacks, scored as its OCR text: a record of another arm with the OCR text as the correction. */
function ocrLine(template: CorrectionRecord): AlignedLine {
  return {
    record: { ...template, corrected_text: template.ocr_text, raw_output: template.ocr_text, error: null },
    rawText: null,
    guard: null,
    filled: true,
  };
}

/** Align every arm on the study's line set (see the module comment); `base` gives the line order. */
export function alignArms(arms: LoadedArm[], base: LoadedArm, missing: MissingLines): AlignedArms {
  const datasetNames = [...new Set(arms.flatMap((a) => [...a.byDataset.keys()]))].sort(cmpStr);
  const datasets: string[] = [];
  const sampleIds: string[] = [];
  const ranges = new Map<string, [number, number]>();
  const templates: CorrectionRecord[] = [];
  for (const ds of datasetNames) {
    const from = sampleIds.length;
    const seen = new Set<string>();
    for (const a of [base, ...arms.filter((x) => x !== base)]) {
      for (const l of a.byDataset.get(ds) ?? []) {
        if (seen.has(l.record.sample_id)) continue;
        seen.add(l.record.sample_id);
        datasets.push(ds);
        sampleIds.push(l.record.sample_id);
        templates.push(l.record);
      }
    }
    ranges.set(ds, [from, sampleIds.length]);
  }
  const lines = new Map<string, AlignedLine[]>();
  const filled = new Map<string, Record<string, number>>();
  for (const a of arms) {
    const own = new Map<string, ArmLine>();
    for (const [ds, list] of a.byDataset) for (const l of list) own.set(lineKey(ds, l.record.sample_id), l);
    const counts: Record<string, number> = {};
    const aligned = sampleIds.map((id, i): AlignedLine => {
      const l = own.get(lineKey(datasets[i], id));
      if (l) return { ...l, filled: false };
      counts[datasets[i]] = (counts[datasets[i]] ?? 0) + 1;
      return ocrLine(templates[i]);
    });
    const missingHere = Object.entries(counts);
    if (missingHere.length > 0 && missing === 'error') throw missingError(a, missingHere, arms, sampleIds, datasets);
    lines.set(a.info.name, aligned);
    filled.set(a.info.name, counts);
  }
  return { datasets, ranges, sampleIds, lines, filled };
}

function missingError(
  arm: LoadedArm,
  missing: Array<[string, number]>,
  arms: LoadedArm[],
  ids: string[],
  datasets: string[],
): UserInputError {
  const [ds, n] = missing[0];
  const has = new Set((arm.byDataset.get(ds) ?? []).map((l) => l.record.sample_id));
  const first = ids.find((id, i) => datasets[i] === ds && !has.has(id))!;
  const other = arms.find((a) => a !== arm && (a.byDataset.get(ds) ?? []).some((l) => l.record.sample_id === first));
  const more =
    missing.length > 1
      ? ` (and ${missing
          .slice(1)
          .map(([d, c]) => `${c} of ${d}`)
          .join(', ')})`
      : '';
  return new UserInputError(
    `arm "${arm.info.name}" lacks ${n} line(s) of dataset "${ds}" that arm "${other?.info.name ?? '?'}" has (first: ${first})${more}; ` +
      'finish its inference, or score them as the OCR text with analysis.missing_lines: ocr (phase5 analyze --missing-lines ocr)',
  );
}
