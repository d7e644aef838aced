/**
 * The paper row (the design document's "5: +RAG (OpenITI)" of the main results table): RAG over OpenITI against the
 * zero-shot baseline, same model, per dataset and pooled — from the arms `rag` and `zero_shot` of a study, or else
 * from the design document's comparisons (rag vs zero_shot). Written as study/paper/paper_row.{tex,csv}.
 */
import type { ArmsAnalysis } from '../../study/arms';
import type { ReportDocs } from '../../charts/specs';
import { booktabs, texNum, type TexColumn } from './latex';
import { POOLED } from './main-table';

export interface PaperRow {
  row: string;
  dataset: string;
  lines: number;
  zero_shot_cer: number | null;
  rag_cer: number | null;
  delta_cer: number | null;
  delta_cer_ci_lo: number | null;
  delta_cer_ci_hi: number | null;
  p_holm: number | null;
}

export const PAPER_ROW = '5: +RAG (OpenITI)';

/**
 * From the study's `rag` and `zero_shot` arms (their planned contrast); null when the study lacks either or the
 * contrast, or when the contrast is ΔcMER.
 */
export function paperRowsFromArms(a: ArmsAnalysis): PaperRow[] | null {
  const rag = a.arms.find((r) => r.name === 'rag');
  const zs = a.arms.find((r) => r.name === 'zero_shot');
  const c = a.contrasts.find((x) => x.arm === 'rag' && x.vs === 'zero_shot');
  // The paper's row is in CER: a ΔcMER contrast (analysis.primary_metric: cmer) is not its figure.
  if (!rag || !zs || !c || c.metric === 'cmer') return null;
  const scopes = a.datasets.length > 1 ? [...a.datasets, POOLED] : a.datasets;
  return scopes.map((ds) => {
    const pooled = ds === POOLED;
    const v = pooled ? c : c.datasets[ds];
    return {
      row: PAPER_ROW,
      dataset: ds,
      lines: v?.n_paired ?? 0,
      zero_shot_cer: (pooled ? zs : zs.datasets[ds])?.cer ?? null,
      rag_cer: (pooled ? rag : rag.datasets[ds])?.cer ?? null,
      delta_cer: v?.delta_cer ?? null,
      delta_cer_ci_lo: v?.ci?.[0] ?? null,
      delta_cer_ci_hi: v?.ci?.[1] ?? null,
      p_holm: v?.p_holm ?? null,
    };
  });
}

/** From the design document's comparison_vs_phase2.json per dataset and comparison.json (`phase5` = rag, `phase2` = zero_shot in their keys). */
export function paperRowsFromDocs(d: ReportDocs): PaperRow[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const of = (dataset: string, x: Record<string, any>, n: number | null): PaperRow => ({
    row: PAPER_ROW,
    dataset,
    lines: n ?? 0,
    zero_shot_cer: x.phase2_baseline?.cer ?? null,
    rag_cer: x.phase5_corrected?.cer ?? null,
    delta_cer: x.valid === false ? null : (x.delta?.cer_absolute ?? null),
    delta_cer_ci_lo: x.bootstrap?.delta_cer?.ci95?.[0] ?? null,
    delta_cer_ci_hi: x.bootstrap?.delta_cer?.ci95?.[1] ?? null,
    p_holm: null,
  });
  const rows = d.datasets.map((ds) => of(ds.name, ds.comparison, ds.comparison.meta?.n_paired ?? null));
  if (d.datasets.length > 1) rows.push(of(POOLED, d.comparison.overall ?? {}, d.comparison.meta?.n_paired ?? null));
  return rows;
}

const pct = (x: number | null, signed = false) => (x === null ? '---' : texNum(x * 100, 2, signed));

const COLUMNS: TexColumn<PaperRow>[] = [
  { head: 'Dataset', align: 'l', cell: (r) => r.dataset },
  { head: 'Lines', align: 'r', cell: (r) => String(r.lines) },
  { head: 'Zero-shot CER (\\%)', align: 'r', cell: (r) => pct(r.zero_shot_cer), raw: true },
  { head: '+RAG CER (\\%)', align: 'r', cell: (r) => pct(r.rag_cer), raw: true },
  {
    head: '$\\Delta$CER (pp) [95\\% CI]',
    align: 'r',
    cell: (r) =>
      `${pct(r.delta_cer, true)}${r.delta_cer_ci_lo !== null && r.delta_cer_ci_hi !== null ? ` [${pct(r.delta_cer_ci_lo, true)}, ${pct(r.delta_cer_ci_hi, true)}]` : ''}`,
    raw: true,
  },
];

export function paperRowTex(rows: readonly PaperRow[], caption: string): string {
  return booktabs(rows, COLUMNS, { caption, label: 'tab:paper-row' });
}
