/** The per-line table and its rollups (sums and means per table or per group), the input of every document. */
import * as aq from 'arquero';
import type { ScoredLine } from './pair-rows';
import type { Table } from './table';

const { op } = aq;

/** The per-line table with the derived 0/1 and per-line rate columns used by every rollup. */
export function samplesTable(rows: Array<ScoredLine & { dataset?: string; stratum?: number }>): Table {
  // String expressions (not arrow functions): Arquero parses function source, and transpilers rewrite it.
  return aq.from(rows).derive({
    paired: 'd => d.has_base ? 1 : 0',
    rag_help: 'd => d.rag_ce < d.ocr_ce ? 1 : 0',
    rag_harm: 'd => d.rag_ce > d.ocr_ce ? 1 : 0',
    base_help: 'd => d.has_base && d.base_ce < d.ocr_ce ? 1 : 0',
    base_harm: 'd => d.has_base && d.base_ce > d.ocr_ce ? 1 : 0',
    rag_better: 'd => d.has_base && d.rag_ce < d.base_ce ? 1 : 0',
    rag_worse: 'd => d.has_base && d.rag_ce > d.base_ce ? 1 : 0',
    rag_fail_n: 'd => d.rag_failed ? 1 : 0',
    base_fail_n: 'd => d.base_failed ? 1 : 0',
    rag_fail_error: "d => d.rag_failure === 'error' ? 1 : 0",
    rag_fail_empty: "d => d.rag_failure === 'empty_output' ? 1 : 0",
    base_fail_error: "d => d.base_failure === 'error' ? 1 : 0",
    base_fail_empty: "d => d.base_failure === 'empty_output' ? 1 : 0",
    fallback_n: "d => d.prompt_type === 'zero_shot_fallback' ? 1 : 0",
    empty_ref: 'd => d.ref_chars === 0 ? 1 : 0',
    gold_mismatch_n: 'd => d.gold_mismatch ? 1 : 0',
    no_input_n: 'd => d.has_input ? 0 : 1',
    ocr_line_cer: 'd => d.ref_chars > 0 ? d.ocr_ce / d.ref_chars : null',
    rag_line_cer: 'd => d.ref_chars > 0 ? d.rag_ce / d.ref_chars : null',
    base_line_cer: 'd => d.has_base && d.ref_chars > 0 ? d.base_ce / d.ref_chars : null',
    ocr_line_wer: 'd => d.ref_words > 0 ? d.ocr_we / d.ref_words : null',
    rag_line_wer: 'd => d.ref_words > 0 ? d.rag_we / d.ref_words : null',
    base_line_wer: 'd => d.has_base && d.ref_words > 0 ? d.base_we / d.ref_words : null',
  });
}

const SUM_COLS = [
  'ref_chars',
  'ref_words',
  'ocr_ce',
  'ocr_we',
  'rag_ce',
  'rag_we',
  'base_ce',
  'base_we',
  'ocr_cs',
  'ocr_cd',
  'ocr_ci',
  'rag_cs',
  'rag_cd',
  'rag_ci',
  'base_cs',
  'base_cd',
  'base_ci',
  'n_ref_chars',
  'n_ref_words',
  'n_ocr_ce',
  'n_ocr_we',
  'n_rag_ce',
  'n_rag_we',
  'n_base_ce',
  'n_base_we',
  'paired',
  'rag_help',
  'rag_harm',
  'base_help',
  'base_harm',
  'rag_better',
  'rag_worse',
  'rag_fail_n',
  'base_fail_n',
  'rag_fail_error',
  'rag_fail_empty',
  'base_fail_error',
  'base_fail_empty',
  'fallback_n',
  'empty_ref',
  'gold_mismatch_n',
  'no_input_n',
] as const;
const MEAN_COLS = [
  'ocr_line_cer',
  'rag_line_cer',
  'base_line_cer',
  'ocr_line_wer',
  'rag_line_wer',
  'base_line_wer',
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

/** The per-line table, its sums, and the comparison set (lines with a zero_shot line; all lines without any). */
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
  const cmpT = hasBaseline ? t.filter('d => d.has_base') : t;
  const cmp = hasBaseline ? sums(cmpT) : all;
  return { t, all, hasBaseline, cmpT, cmp };
}
