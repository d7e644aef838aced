/** The report's result sections: main table, line effects, leakage, retrieval, OCR-CER bands, normalised metrics. */
import { OCR_CER_BANDS, SCORE_BUCKETS } from '../../score/bands';
import { ciOr, dash, emptyCellNote, fewClustersBlocks, pctF, ppF, type Block } from '../blocks';
import { fewClustersWarning, reasonsIn } from '../../stats/min-clusters';
import type { ReportDocs } from '../../charts/specs';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const numF = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? dash : x.toFixed(d).replace('-', '−'));
const relF = (x: number | null | undefined) =>
  x === null || x === undefined ? dash : `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(1)}%`;

/**
 * One row of the main table from a comparison document (a dataset's or the overall one); a comparison that is not
 * valid (too many failed lines) shows its rates but "not valid" for every delta and its interval.
 */
function mainRow(name: string, x: Json, n: number | null): string[] {
  const valid = x.valid !== false;
  const delta = (cell: string) => (valid ? cell : 'not valid');
  return [
    name,
    String(n ?? dash),
    pctF(x.ocr_baseline?.cer),
    pctF(x.phase2_baseline?.cer),
    pctF(x.phase5_corrected?.cer),
    delta(ppF(x.delta?.cer_absolute)),
    delta(ciOr(x.bootstrap?.delta_cer?.ci95)),
    delta(relF(x.delta?.cer_relative_pct)),
    pctF(x.phase2_baseline?.wer),
    pctF(x.phase5_corrected?.wer),
    delta(ppF(x.delta?.wer_absolute)),
  ];
}

export function mainResultBlocks(d: ReportDocs): Block[] {
  const c = d.comparison;
  const rows = d.datasets.map((ds) => mainRow(ds.name, ds.comparison, ds.comparison.meta?.n_paired ?? null));
  if (d.datasets.length > 1) rows.push(mainRow('**All datasets**', c.overall ?? {}, c.meta?.n_paired ?? null));
  const boots = [...d.datasets.map((ds) => ds.comparison.bootstrap ?? null), c.overall?.bootstrap ?? null];
  return [
    { kind: 'h2', text: 'Main results' },
    ...fewClustersBlocks(fewClustersWarning('Too small for intervals', reasonsIn(boots))),
    { kind: 'p', text: `Overall: ${c.overall?.interpretation ?? dash}` },
    {
      kind: 'table',
      head: ['Dataset', 'Lines', 'OCR CER', 'zero_shot CER', 'rag CER', 'ΔCER', '95% CI', 'Rel.', 'zero_shot WER', 'rag WER', 'ΔWER'],
      rows,
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
    ...emptyCellNote(boots.map((b) => b?.delta_cer?.reason)),
    { kind: 'list', items: d.datasets.map((ds) => `${ds.name}: ${ds.comparison.interpretation}`) },
  ];
}

export function lineEffectBlocks(d: ReportDocs): Block[] {
  return [
    { kind: 'h2', text: 'Line-level effects and failures' },
    {
      kind: 'p',
      text: 'Help / harm: share of lines with fewer / more character errors than the raw OCR line. Failed corrections (error or empty output) are scored as identity (corrected = OCR).',
    },
    {
      kind: 'table',
      head: [
        'Dataset',
        'rag help',
        'rag harm',
        'zero_shot help',
        'zero_shot harm',
        'rag better than zero_shot',
        'rag worse than zero_shot',
        'rag failures',
        'zero_shot failures',
      ],
      rows: d.datasets.map((ds) => {
        const le = ds.comparison.line_effects ?? {};
        const f = ds.comparison.failures ?? {};
        return [
          ds.name,
          pctF(le.phase5_help_rate, 1),
          pctF(le.phase5_harm_rate, 1),
          pctF(le.phase2_help_rate, 1),
          pctF(le.phase2_harm_rate, 1),
          String(le.phase5_better_than_phase2 ?? dash),
          String(le.phase5_worse_than_phase2 ?? dash),
          String(ds.metrics.failures?.total ?? dash),
          String(f.phase2 ?? dash),
        ];
      }),
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
  ];
}

export function leakageBlocks(d: ReportDocs): Block[] {
  return [
    { kind: 'h2', text: 'Leakage check' },
    { kind: 'list', items: d.datasets.map((ds) => `${ds.name}: ${ds.retrieval?.leakage?.statement ?? 'no retrieval analysis'}`) },
  ];
}

export function retrievalBlocks(d: ReportDocs): Block[] {
  const blocks: Block[] = [
    { kind: 'h2', text: 'Retrieval' },
    {
      kind: 'p',
      text: 'Score buckets of the top-1 cosine score. High / low half: samples split at the median top-1 score; improvement = zero_shot CER − rag CER (positive = RAG helped). Spearman: top-1 score vs per-line improvement.',
    },
    {
      kind: 'table',
      head: [
        'Dataset',
        'With retrieval',
        'Zero results',
        'Avg top-1',
        'Avg top-3',
        ...SCORE_BUCKETS,
        'Improvement high half',
        'Improvement low half',
        'Spearman',
      ],
      rows: d.datasets.map((ds) => {
        const r = ds.retrieval ?? {};
        const s = r.retrieval_stats ?? {};
        const be = r.retrieval_by_error_type ?? {};
        return [
          ds.name,
          String(s.samples_with_any_retrieval ?? dash),
          String(s.samples_zero_results ?? dash),
          numF(s.avg_top1_score),
          numF(s.avg_top3_score),
          ...SCORE_BUCKETS.map((b) => String(s.score_distribution?.[b] ?? dash)),
          ppF(be.high_score_samples?.cer_improvement),
          ppF(be.low_score_samples?.cer_improvement),
          numF(be.correlation?.spearman, 3),
        ];
      }),
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
  ];
  const eraNames = d.datasets.length ? Object.keys(d.datasets[0].retrieval?.corpus_date_counts ?? {}) : [];
  if (eraNames.length) {
    blocks.push({ kind: 'h3', text: 'Era of the top-1 hit (author death year, AH)' });
    blocks.push({
      kind: 'table',
      head: ['Dataset', ...eraNames],
      rows: d.datasets.map((ds) => [ds.name, ...eraNames.map((e) => String(ds.retrieval?.corpus_date_counts?.[e] ?? dash))]),
      align: ['l', ...eraNames.map(() => 'r' as const)],
    });
  }
  return blocks;
}

export function bandBlocks(d: ReportDocs): Block[] {
  const bands = d.comparison.overall?.by_ocr_cer_band ?? {};
  return [
    { kind: 'h2', text: 'By baseline CER band (raw OCR line CER, all datasets)' },
    {
      kind: 'table',
      head: ['Band', 'Lines', 'OCR CER', 'zero_shot CER', 'rag CER', 'ΔCER', 'rag help', 'rag harm'],
      rows: OCR_CER_BANDS.map((b) => {
        const g = bands[b] ?? {};
        return [
          b,
          String(g.n_samples ?? 0),
          pctF(g.ocr_cer),
          pctF(g.phase2_cer),
          pctF(g.phase5_cer),
          ppF(g.delta_cer),
          pctF(g.phase5_help_rate, 1),
          pctF(g.phase5_harm_rate, 1),
        ];
      }),
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
  ];
}

export function normalisedBlocks(d: ReportDocs): Block[] {
  const m = d.metrics;
  if (!m.normalization) return [];
  return [
    { kind: 'h2', text: 'Secondary: Arabic-normalised metrics' },
    { kind: 'p', text: m.normalization.label },
    {
      kind: 'table',
      head: ['Dataset', 'OCR CER', 'zero_shot CER', 'rag CER', 'ΔCER', 'zero_shot WER', 'rag WER', 'ΔWER'],
      rows: d.datasets.map((ds) => {
        const n = ds.comparison.normalized ?? {};
        const o = ds.metrics.normalized?.ocr_baseline ?? {};
        return [
          ds.name,
          pctF(o.cer),
          pctF(n.phase2_baseline?.cer),
          pctF(n.phase5_corrected?.cer),
          ppF(n.delta?.cer_absolute),
          pctF(n.phase2_baseline?.wer),
          pctF(n.phase5_corrected?.wer),
          ppF(n.delta?.wer_absolute),
        ];
      }),
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
  ];
}
