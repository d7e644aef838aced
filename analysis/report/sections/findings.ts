/**
 * The findings that lead the report's Arms section: the planned contrasts (one Holm family) with their
 * block-bootstrap CIs, permutation p and detectable effect, the method in one paragraph, and per arm the
 * guard effect, ΔCER by top-1 retrieval score band, by memorisation (when the probe ran) and the error classes
 * fixed / introduced.
 */
import type { ArmsAnalysis } from '../../study/arms';
import type { ContrastResult } from '../../study/measure-contrasts';
import { ciOr, dash, emptyCellNote, labelledTable, mdeOr, ppF, type Block } from '../blocks';
import { DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS } from '../../stats/bootstrap';
import { ERROR_CATEGORIES } from '../../score/error-changes';
import { SCORE_BUCKETS } from '../../score/bands';
import { memorisationSplitTable } from './when-memorisation';

const pF = (p: number | null | undefined) => (p === null || p === undefined ? dash : p < 0.0001 ? '<0.0001' : p.toFixed(4));
const mdeF = (x: number | null | undefined) => (x === null || x === undefined ? dash : `${(x * 100).toFixed(2)} pp`);
const KIND: Record<ContrastResult['kind'], string> = {
  vs_baseline: 'vs baseline',
  rag_vs_placebo: 'rag vs placebo',
  variant_vs_rag: 'retrieval variant vs rag',
  k_series: 'k series',
  configured: 'configured',
};

const label = (c: ContrastResult) => `${c.arm} − ${c.vs}${c.in_family ? '' : ' † (upper bound, not in the family)'}`;

/** With cMER primary, the contrast tables' ΔCER heads and notes say ΔcMER (the figures are ΔcMER's). */
const inMetric = (a: ArmsAnalysis, text: string): string =>
  a.primary_metric === 'cmer' ? text.replaceAll('CER(', 'cMER(').replaceAll('ΔCER', 'ΔcMER') : text;

function methodBlock(a: ArmsAnalysis): Block {
  const b = a.methods.bootstrap;
  const fewer =
    b.iterations < DEFAULT_BOOTSTRAP.iterations || a.methods.permutations < DEFAULT_PERMUTATIONS
      ? ` (fewer than the default ${DEFAULT_BOOTSTRAP.iterations.toLocaleString('en')} of each: a quick setting, the intervals and p-values are coarser)`
      : '';
  const clusters = Object.entries(a.clusters)
    .map(([ds, c]) => `${ds}: ${c.clusters} clusters, ${c.method}`)
    .join('; ');
  const filled = a.arms.filter((r) => r.filled_lines > 0).map((r) => `${r.name} ${r.filled_lines}`);
  return {
    kind: 'p',
    text: inMetric(
      a,
      'Every comparison runs on the same lines for both arms' +
        (filled.length ? ` (lines an arm lacked are scored as their OCR text: ${filled.join(', ')} line(s))` : '') +
        `. Lines are resampled in clusters — ${clusters}. 95% CIs: paired block bootstrap (${b.iterations.toLocaleString('en')} resamples, seed ${b.seed}), ` +
        `pooled figures resampling within each dataset; macro = mean of the datasets' figures. p = block permutation test of the printed ΔCER ` +
        `(${a.methods.permutations.toLocaleString('en')} permutations); p (Holm) over every contrast of every scope below (one family)${fewer}. ` +
        'Detectable = the smallest |ΔCER| this study detects with 80% power at two-sided α = 0.05 (2.80 × the block-bootstrap SE).',
    ),
  };
}

function contrastTable(a: ArmsAnalysis): Block[] {
  if (a.contrasts.length === 0) return [];
  const rows = a.contrasts.map((c) => [
    label(c),
    KIND[c.kind],
    String(c.n_paired),
    `${ppF(c.delta_cer)} ${ciOr(c.ci)}`,
    `${pF(c.p)} / ${c.in_family ? pF(c.p_holm) : 'n/a'}`,
    mdeOr(c.mde),
    c.macro ? `${ppF(c.macro.delta_cer)} ${ciOr(c.macro.ci)}` : dash,
    c.macro ? `${pF(c.macro.p)} / ${c.in_family ? pF(c.macro.p_holm) : 'n/a'}` : dash,
  ]);
  const head = [
    'Contrast (ΔCER = CER(arm) − CER(vs))',
    'Kind',
    'Lines',
    'ΔCER pooled [95% CI]',
    'p / p (Holm)',
    'Detectable |ΔCER|',
    'ΔCER macro [95% CI]',
    'p / p (Holm) macro',
  ].map((h) => inMetric(a, h));
  // Contrasts without a detectable effect (too few clusters, or two arms that agree on every line) say nothing about power.
  const best = a.contrasts.filter((c) => c.in_family && c.mde !== null && c.mde > 0).map((c) => c.mde!);
  const detect = best.length
    ? [
        {
          kind: 'p' as const,
          text: inMetric(
            a,
            `This study can detect |ΔCER| ≥ ${mdeF(Math.min(...best))} (pooled, its most precise contrast) to ≥ ${mdeF(Math.max(...best))} (its least precise).`,
          ),
        },
      ]
    : [];
  const per = a.datasets.length > 1 ? perDatasetTable(a) : [];
  const note = emptyCellNote(a.contrasts.flatMap((c) => [c.reason, c.macro?.reason]));
  return [{ kind: 'h3', text: 'Planned contrasts' }, methodBlock(a), ...detect, labelledTable(head, rows, 2), ...note, ...per];
}

/** Per dataset, the contrasts that are not an arm vs the baseline (those are in the arm tables, one per dataset). */
function perDatasetTable(a: ArmsAnalysis): Block[] {
  const contrasts = a.contrasts.filter((c) => c.kind !== 'vs_baseline');
  if (contrasts.length === 0) return [];
  const rows = contrasts.map((c) => [
    label(c),
    ...a.datasets.map((ds) => {
      const d = c.datasets[ds];
      return d ? `${ppF(d.delta_cer)} ${ciOr(d.ci)} p(Holm) ${c.in_family ? pF(d.p_holm) : 'n/a'}` : dash;
    }),
  ]);
  const note = emptyCellNote(contrasts.flatMap((c) => Object.values(c.datasets).map((d) => d.reason)));
  return [
    { kind: 'h3', text: 'Planned contrasts between arms, by dataset' },
    { kind: 'p', text: 'Each arm vs the baseline per dataset: the arm tables below.' },
    labelledTable(['Contrast', ...a.datasets], rows),
    ...note,
  ];
}

function macroTable(a: ArmsAnalysis): Block[] {
  const arms = a.arms.filter((r) => r.macro);
  if (arms.length === 0) return [];
  const rate = (ci: [number, number] | null) => (ci ? `[${(ci[0] * 100).toFixed(2)}, ${(ci[1] * 100).toFixed(2)}%]` : dash);
  const rows = arms.map((r) => {
    const m = r.macro!;
    const vb = m.vs_baseline;
    return [
      r.name,
      `${m.cer === null ? dash : `${(m.cer * 100).toFixed(2)}%`} ${rate(m.cer_ci)}`,
      vb ? `${ppF(vb.delta_cer)} ${ciOr(vb.ci)}` : dash,
      vb ? `${pF(vb.p)} / ${r.upper_bound ? 'n/a' : pF(vb.p_holm)}` : dash,
      vb ? mdeOr(vb.mde) : dash,
    ];
  });
  return [
    { kind: 'h3', text: 'Macro average over datasets' },
    {
      kind: 'p',
      text: "Each dataset (book) weighs the same: the mean of the datasets' CER and ΔCER, so the largest book does not dominate as it does in the pooled figures.",
    },
    labelledTable(['Arm', 'CER macro [95% CI]', 'ΔCER vs baseline macro [95% CI]', 'p / p (Holm)', 'Detectable |ΔCER|'], rows),
    ...emptyCellNote(arms.flatMap((r) => [r.macro!.ci_reason, r.macro!.vs_baseline?.reason])),
  ];
}

function guardEffectTable(a: ArmsAnalysis): Block[] {
  const arms = a.arms.filter((r) => r.when.guard_effect);
  if (arms.length === 0) return [];
  const rows = arms.map((r) => {
    const g = r.when.guard_effect!;
    return [r.name, String(g.n_paired), `${ppF(g.delta_cer)} ${ciOr(g.ci)}`, pF(g.p), `${g.better} / ${g.same} / ${g.worse}`];
  });
  return [
    { kind: 'h3', text: 'Guard effect (guarded vs unguarded output, all datasets)' },
    {
      kind: 'p',
      text: 'ΔCER = CER(guarded output) − CER(the raw model output after cleaning, without the guard), same lines; negative = the guard helped. Lines better / same / worse with the guard.',
    },
    labelledTable(['Arm', 'Lines', 'Guard effect ΔCER [95% CI]', 'p', 'Better / same / worse'], rows),
    ...emptyCellNote(arms.map((r) => r.when.guard_effect!.reason)),
  ];
}

function scoreBandTable(a: ArmsAnalysis): Block[] {
  const arms = a.arms.filter((r) => r.when.by_score_band);
  if (arms.length === 0) return [];
  const rows = arms.map((r) => [
    r.name,
    ...SCORE_BUCKETS.map((b) => {
      const x = r.when.by_score_band![b];
      return x.lines === 0 ? dash : `${ppF(x.delta_cer)} ${ciOr(x.ci)} (n=${x.lines})`;
    }),
  ]);
  return [
    { kind: 'h3', text: 'ΔCER vs the baseline by top-1 retrieval score (all datasets)' },
    {
      kind: 'p',
      text: 'Do higher-similarity retrievals lead to better corrections? Each cell: ΔCER of the arm vs the baseline on the lines whose top-1 retrieved sentence scored in the band, block-bootstrap 95% CI.',
    },
    labelledTable(['Arm', ...SCORE_BUCKETS.map((b) => `top-1 ${b}`)], rows),
    ...emptyCellNote(arms.flatMap((r) => SCORE_BUCKETS.map((b) => r.when.by_score_band![b].reason))),
  ];
}

function errorClassTable(a: ArmsAnalysis): Block[] {
  const rows = a.arms.map((r) => [
    r.name,
    ...ERROR_CATEGORIES.map((c) => {
      const x = r.when.error_classes[c];
      return x.fixed === 0 && x.introduced === 0 ? dash : `${x.net_fixed} (${x.fixed} / ${x.introduced})`;
    }),
  ]);
  return [
    { kind: 'h3', text: 'Error classes per arm (all datasets)' },
    { kind: 'p', text: 'Net OCR errors fixed (fixed / introduced) per error class, texts in scoring form.' },
    labelledTable(['Arm', ...ERROR_CATEGORIES], rows),
  ];
}

/** The contrasts and the method first; the "when" tables are placed after the per-arm tables. */
export function findingsBlocks(a: ArmsAnalysis): Block[] {
  return contrastTable(a);
}

export function whenBlocks(a: ArmsAnalysis): Block[] {
  return [...macroTable(a), ...guardEffectTable(a), ...scoreBandTable(a), ...memorisationSplitTable(a), ...errorClassTable(a)];
}
