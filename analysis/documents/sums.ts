/** The per-line table and its rollups (sums and means per table or per group), the input of every document. */
import * as aq from 'arquero';
import type { ScoredLine } from './pair-rows';
import type { Table } from './table';

const { op } = aq;

/** The per-line table with the derived 0/1 and per-line rate columns used by every rollup. */
export function samplesTable(rows: Array<ScoredLine & { dataset?: string; stratum?: number }>): Table {
  // String expressions (not arrow functions): Arquero parses function source, and transpilers rewrite it.
  return aq.from(rows).derive({
    paired: 'd => d.has_p2 ? 1 : 0',
    p5_help: 'd => d.p5_ce < d.ocr_ce ? 1 : 0',
    p5_harm: 'd => d.p5_ce > d.ocr_ce ? 1 : 0',
    p2_help: 'd => d.has_p2 && d.p2_ce < d.ocr_ce ? 1 : 0',
    p2_harm: 'd => d.has_p2 && d.p2_ce > d.ocr_ce ? 1 : 0',
    p5_better: 'd => d.has_p2 && d.p5_ce < d.p2_ce ? 1 : 0',
    p5_worse: 'd => d.has_p2 && d.p5_ce > d.p2_ce ? 1 : 0',
    p5_fail_n: 'd => d.p5_failed ? 1 : 0',
    p2_fail_n: 'd => d.p2_failed ? 1 : 0',
    p5_fail_error: "d => d.p5_failure === 'error' ? 1 : 0",
    p5_fail_empty: "d => d.p5_failure === 'empty_output' ? 1 : 0",
    p2_fail_error: "d => d.p2_failure === 'error' ? 1 : 0",
    p2_fail_empty: "d => d.p2_failure === 'empty_output' ? 1 : 0",
    fallback_n: "d => d.prompt_type === 'zero_shot_fallback' ? 1 : 0",
    empty_ref: 'd => d.ref_chars === 0 ? 1 : 0',
    gold_mismatch_n: 'd => d.gold_mismatch ? 1 : 0',
    no_input_n: 'd => d.has_input ? 0 : 1',
    ocr_line_cer: 'd => d.ref_chars > 0 ? d.ocr_ce / d.ref_chars : null',
    p5_line_cer: 'd => d.ref_chars > 0 ? d.p5_ce / d.ref_chars : null',
    p2_line_cer: 'd => d.has_p2 && d.ref_chars > 0 ? d.p2_ce / d.ref_chars : null',
    ocr_line_wer: 'd => d.ref_words > 0 ? d.ocr_we / d.ref_words : null',
    p5_line_wer: 'd => d.ref_words > 0 ? d.p5_we / d.ref_words : null',
    p2_line_wer: 'd => d.has_p2 && d.ref_words > 0 ? d.p2_we / d.ref_words : null',
  });
}

const SUM_COLS = [
  'ref_chars',
  'ref_words',
  'ocr_ce',
  'ocr_we',
  'p5_ce',
  'p5_we',
  'p2_ce',
  'p2_we',
  'ocr_cs',
  'ocr_cd',
  'ocr_ci',
  'p5_cs',
  'p5_cd',
  'p5_ci',
  'p2_cs',
  'p2_cd',
  'p2_ci',
  'n_ref_chars',
  'n_ref_words',
  'n_ocr_ce',
  'n_ocr_we',
  'n_p5_ce',
  'n_p5_we',
  'n_p2_ce',
  'n_p2_we',
  'paired',
  'p5_help',
  'p5_harm',
  'p2_help',
  'p2_harm',
  'p5_better',
  'p5_worse',
  'p5_fail_n',
  'p2_fail_n',
  'p5_fail_error',
  'p5_fail_empty',
  'p2_fail_error',
  'p2_fail_empty',
  'fallback_n',
  'empty_ref',
  'gold_mismatch_n',
  'no_input_n',
] as const;
const MEAN_COLS = [
  'ocr_line_cer',
  'p5_line_cer',
  'p2_line_cer',
  'ocr_line_wer',
  'p5_line_wer',
  'p2_line_wer',
  'top1',
  'top3_mean',
  'topk_mean',
] as const;

type SumCol = (typeof SUM_COLS)[number];
type MeanCol = (typeof MEAN_COLS)[number];
export type Sums = Record<SumCol, number> & Record<MeanCol, number | null> & { n: number; median_top1: number | null };

const ROLLUP: Record<string, unknown> = {
  n: op.count(),
  ...Object.fromEntries(SUM_COLS.map((c) => [c, op.sum(c)])),
  ...Object.fromEntries(MEAN_COLS.map((c) => [c, op.mean(c)])),
  median_top1: op.median('top1'),
};

function cleanSums(o: Record<string, unknown>): Sums {
  const out: Record<string, number | null> = { n: Number(o.n ?? 0) };
  for (const c of SUM_COLS) out[c] = typeof o[c] === 'number' && Number.isFinite(o[c]) ? (o[c] as number) : 0;
  for (const c of [...MEAN_COLS, 'median_top1']) out[c] = typeof o[c] === 'number' && Number.isFinite(o[c]) ? (o[c] as number) : null;
  return out as Sums;
}

/** Sums over a whole table. */
export function sums(t: Table): Sums {
  return cleanSums(t.rollup(ROLLUP as never).objects()[0] as Record<string, unknown>);
}

/** Sums per value of `key`, for the given labels in the given order (missing labels get empty sums). */
export function sumsBy(t: Table, key: string, labels: readonly string[]): Array<[string, Sums]> {
  const got = new Map<string, Sums>();
  for (const o of t
    .groupby(key)
    .rollup(ROLLUP as never)
    .objects() as Array<Record<string, unknown>>) {
    got.set(String(o[key]), cleanSums(o));
  }
  return labels.map((l) => [l, got.get(l) ?? cleanSums({ n: 0 })]);
}

/** The per-line table, its sums, and the comparison set (lines with a Phase 2 line; all lines without any). */
export interface Rollup {
  t: Table;
  all: Sums;
  hasBaseline: boolean;
  cmpT: Table;
  cmp: Sums;
}

export function rollup(rows: Array<ScoredLine & { dataset?: string; stratum?: number }>): Rollup {
  const t = samplesTable(rows);
  const all = sums(t);
  const hasBaseline = all.paired > 0;
  const cmpT = hasBaseline ? t.filter('d => d.has_p2') : t;
  const cmp = hasBaseline ? sums(cmpT) : all;
  return { t, all, hasBaseline, cmpT, cmp };
}
