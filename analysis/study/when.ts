/**
 * When does an arm help? Per arm, on the study's lines (analysis/study/alignment.ts):
 *  - guard effect: CER(guarded output) − CER(the raw model output after cleaning, unguarded), paired, with its
 *    block-bootstrap CI and permutation p — for arms whose records carry a guard decision;
 *  - ΔCER vs the baseline by top-1 retrieval score band (the arm's own inference_input.jsonl scores), with
 *    CIs: "do higher-similarity retrievals lead to better corrections?" for every arm that retrieves;
 *  - error classes: fixed / introduced OCR errors per Arabic-aware category (analysis/score/error-changes.ts);
 *  - when the memorisation probe ran: ΔCER vs the baseline on memorised and not-memorised lines (./when-memorisation.ts).
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readJsonl } from '../../src/io/jsonl';
import { cleanOutput } from '../../src/llm/clean';
import { failureKind } from '../score/failed-line';
import { prepareText, scoreDistances } from '../../src/text/distance';
import type { AlignedLine } from './alignment';
import { comparePaired, POOLED, type MacroComparison, type PairedComparison, type ResampleSettings, type Scope } from './compare';
import { armsRoot, type LoadedArm } from '../inputs/arm-inputs';
import { lineKey } from '../inputs/records';
import { anchoredErrors, compareErrors, ERROR_CATEGORIES, type AnchoredError, type ErrorCategory } from '../score/error-changes';
import type { ScoreBucket } from '../score/bands';
import { scoreBands, type ScoreBand } from '../stats/score-bands';
import type { ProbeLineScores } from '../probe/line-scores';
import { memorisationSplit, type MemorisationSplit } from './when-memorisation';

export type { ScoreBand };

export interface ArmWhen {
  /** Guarded vs unguarded (cleaned raw output); null for an arm without guard decisions. */
  guard_effect: (PairedComparison & { macro: MacroComparison | null }) | null;
  /** vs the baseline per top-1 score band; null for the baseline and arms without retrieval scores. */
  by_score_band: Record<ScoreBucket, ScoreBand> | null;
  /** Lines of the arm with no top-1 score (left out of by_score_band). */
  no_score_lines: number;
  /** OCR errors fixed and errors introduced per category (texts in scoring form), all datasets. */
  error_classes: Record<ErrorCategory, { fixed: number; introduced: number; net_fixed: number }>;
  /**
   * Only when the probe ran: vs the baseline on memorised / not-memorised lines; null for the baseline and arms
   * whose model the probe holds no score of.
   */
  by_memorisation?: MemorisationSplit | null;
}

/** The scored line fields this file reads. */
interface RowView {
  ref_chars: number;
  ce: number;
  ocr_ce: number;
  failed: boolean;
  filled: boolean;
}

export interface WhenInput {
  arms: LoadedArm[];
  lines: Map<string, AlignedLine[]>;
  rows: Map<string, RowView[]>;
  baseline: string;
  scopes: Scope[];
  settings: ResampleSettings & { collapseWhitespace: boolean };
  resultsDir: string;
  datasets: string[];
  sampleIds: string[];
  /** The memorisation probe's per-line scores; null or absent when no probe ran. */
  probe?: ProbeLineScores | null;
  /** The rag arm's top-1 scores by line key, when the caller has them (else read from its inference_input.jsonl). */
  ragTopScores?: ReadonlyMap<string, number> | null;
}

export async function armsWhen(input: WhenInput): Promise<Map<string, ArmWhen>> {
  const pooled = input.scopes.find((x) => x.key === POOLED)!;
  const baseRows = input.rows.get(input.baseline)!;
  const scoresCache = new Map<string, Map<string, number>>();
  const names = input.arms.map((a) => a.info.name);
  const classes = errorClasses(names, input.lines, input.rows, input.settings.collapseWhitespace);
  const out = new Map<string, ArmWhen>();
  for (const arm of input.arms) {
    const name = arm.info.name;
    const rows = input.rows.get(name)!;
    const lines = input.lines.get(name)!;
    const given = name === 'rag' ? input.ragTopScores : undefined;
    const scores =
      given !== undefined
        ? given
        : arm.info.prompt === 'rag' && arm.info.retrieval?.mode !== 'none'
          ? await topScores(input, name, scoresCache)
          : null;
    const top1 = lineTop1(input, scores);
    out.set(name, {
      guard_effect: guardEffect(name, lines, rows, pooled, input.settings),
      by_score_band: top1 && name !== input.baseline ? armScoreBands(name, rows, baseRows, top1, pooled, input.settings) : null,
      no_score_lines: top1 ? top1.filter((x) => x === null).length : rows.length,
      error_classes: classes.get(name)!,
      ...(input.probe ? { by_memorisation: name === input.baseline ? null : armMemorisation(input, arm, rows, baseRows, pooled) } : {}),
    });
  }
  return out;
}

/** The arm's ΔCER vs the baseline split by the probe's `memorised`. */
function armMemorisation(input: WhenInput, arm: LoadedArm, rows: RowView[], baseRows: RowView[], pooled: Scope): MemorisationSplit | null {
  const ce = (r: RowView[]) => Float64Array.from(r, (x) => x.ce);
  const { datasets, sampleIds } = input;
  const ref = Float64Array.from(rows, (r) => r.ref_chars);
  const x = { name: arm.info.name, model: arm.info.model, ref, reference: ce(baseRows), arm: ce(rows), datasets, sampleIds };
  return memorisationSplit(x, input.probe!, pooled, input.settings);
}

/** Unguarded edits: the raw output after cleaning (a failed or empty one scores as the OCR text, like the guarded). */
function guardEffect(
  name: string,
  lines: AlignedLine[],
  rows: RowView[],
  pooled: Scope,
  s: WhenInput['settings'],
): ArmWhen['guard_effect'] {
  if (!lines.some((l) => l.guard !== null)) return null;
  const prep = { collapseWhitespace: s.collapseWhitespace };
  const unguarded = Float64Array.from(lines, ({ record: r, rawText, filled }, i) => {
    if (filled || rows[i].failed) return rows[i].ocr_ce;
    const text = cleanOutput(rawText ?? r.raw_output, { source: r.ocr_text });
    if (failureKind({ ...r, corrected_text: text }) !== null) return rows[i].ocr_ce;
    return scoreDistances(r.gt_text, text, prep).charEdits;
  });
  const ref = Float64Array.from(rows, (r) => r.ref_chars);
  return comparePaired(
    ref,
    unguarded,
    Float64Array.from(rows, (r) => r.ce),
    pooled,
    s,
    `${name}:guard_effect`,
  );
}

/** ΔCER vs the baseline per top-1 score band (analysis/stats/score-bands.ts). */
function armScoreBands(
  name: string,
  rows: RowView[],
  baseRows: RowView[],
  top1: Array<number | null>,
  pooled: Scope,
  s: ResampleSettings,
): Record<ScoreBucket, ScoreBand> {
  const ce = (r: RowView[]) => Float64Array.from(r, (x) => x.ce);
  return scoreBands({ ref: Float64Array.from(rows, (r) => r.ref_chars), reference: ce(baseRows), arm: ce(rows), top1 }, pooled, s, name);
}

/** The top-1 score of every aligned line (null where it has none) from `scores` by line key; null without scores. */
export function lineTop1(
  lines: Pick<WhenInput, 'sampleIds' | 'datasets'>,
  scores: ReadonlyMap<string, number> | null | undefined,
): Array<number | null> | null {
  return scores ? lines.sampleIds.map((id, i) => scores.get(lineKey(lines.datasets[i], id)) ?? null) : null;
}

/** key → top-1 retrieval score of `arm` from its inference_input.jsonl under `<resultsDir>/arms/`; null without one. */
export function armTopScores(resultsDir: string, arm: string): Promise<Map<string, number> | null> {
  return topScores({ resultsDir }, arm, new Map());
}

/** key → top-1 retrieval score from the arm's inference_input.jsonl (shared exports read once). */
async function topScores(
  input: Pick<WhenInput, 'resultsDir'>,
  arm: string,
  cache: Map<string, Map<string, number>>,
): Promise<Map<string, number> | null> {
  const file = path.join(armsRoot(input.resultsDir), arm, 'inference_input.jsonl');
  if (!existsSync(file)) return null;
  const real = realpathSync(file);
  const hit = cache.get(real);
  if (hit) return hit;
  const m = new Map<string, number>();
  for await (const { value } of readJsonl<{ dataset?: string; sample_id?: string; retrieval_scores?: number[] | null }>(real)) {
    const top = value.retrieval_scores?.[0];
    if (typeof top === 'number' && value.dataset !== undefined && value.sample_id !== undefined)
      m.set(lineKey(value.dataset, value.sample_id), top);
  }
  cache.set(real, m);
  return m;
}

/**
 * Every arm's error classes, line by line across the arms: a line's texts are prepared once and its OCR errors
 * and the errors of an output several arms share are aligned once.
 */
function errorClasses(
  names: string[],
  lines: Map<string, AlignedLine[]>,
  rows: Map<string, RowView[]>,
  collapseWhitespace: boolean,
): Map<string, ArmWhen['error_classes']> {
  const tally = () =>
    Object.fromEntries(ERROR_CATEGORIES.map((c) => [c, { fixed: 0, introduced: 0, net_fixed: 0 }])) as ArmWhen['error_classes'];
  const out = new Map(names.map((n) => [n, tally()]));
  const prep = { collapseWhitespace };
  const n = lines.get(names[0])?.length ?? 0;
  for (let i = 0; i < n; i++) {
    const prepared = new Map<string, string>();
    const prepare = (t: string) => prepared.get(t) ?? prepared.set(t, prepareText(t, prep)).get(t)!;
    const ocrErrors = new Map<string, AnchoredError[]>();
    const changes = new Map<string, ReturnType<typeof compareErrors>>();
    for (const name of names) {
      const r = lines.get(name)![i].record;
      const row = rows.get(name)![i];
      const gold = prepare(r.gt_text);
      const ocr = prepare(r.ocr_text);
      const hyp = row.failed || row.filled ? ocr : prepare(r.corrected_text);
      if (hyp === ocr) continue;
      const k = `${gold}\u0000${ocr}`;
      let c = changes.get(`${k}\u0000${hyp}`);
      if (!c) {
        let before = ocrErrors.get(k);
        if (!before) ocrErrors.set(k, (before = anchoredErrors(gold, ocr)));
        changes.set(`${k}\u0000${hyp}`, (c = compareErrors(before, anchoredErrors(gold, hyp))));
      }
      const tot = out.get(name)!;
      for (const e of c.fixed) tot[e.category].fixed++;
      for (const e of c.introduced) tot[e.category].introduced++;
    }
  }
  for (const tot of out.values()) for (const c of ERROR_CATEGORIES) tot[c].net_fixed = tot[c].fixed - tot[c].introduced;
  return out;
}
