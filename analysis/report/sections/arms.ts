/**
 * The report's "Arms" section: tables of every arm (CER, raw vs guarded CER, ΔCER vs the baseline arm and vs
 * the raw OCR with CIs and Holm-adjusted p, line counts per OCR-CER band, guard trigger rates, the verbatim-gold
 * retrieval rate), per dataset what the corpus held out of its source, and two
 * Vega-Lite charts from templates in analysis/charts/arms/: a forest plot of ΔCER vs the baseline (arm ×
 * dataset) and, when two or more arms differ only in retrieval.top_k, ΔCER against k.
 */
import { planBlocks } from './plan';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { provenanceSection } from './provenance';
import { OCR_CER_BANDS } from '../../score/bands';
import type { ArmMetrics, ArmResult, ArmsAnalysis } from '../../study/arms';
import type { HeldComparison } from '../../study/measure-contrasts';
import { ciOr, dash, emptyCellNote, fewClustersBlocks, labelledTable, pctF, ppF, type Block, type RenderedChart } from '../blocks';
import { fewClustersWarning, reasonsIn } from '../../stats/min-clusters';
import { CHART_CONFIG, CHART_TEMPLATE_DIR, type VegaLiteSpec } from '../../charts/specs';
import { findingsBlocks, whenBlocks } from './findings';
import { exclusionText } from '../../inputs/leakage';
import { armProfileBlocks } from './profiles';
import { replicateBlocks, usageBlocks } from './usage';

export const ARMS_CHART_NAMES = ['arms_forest', 'arms_gain_vs_k'] as const;
export type ArmsChartName = (typeof ARMS_CHART_NAMES)[number];

const TEMPLATE: Record<ArmsChartName, string> = { arms_forest: 'forest.vl.json', arms_gain_vs_k: 'gain_vs_k.vl.json' };
const TITLES: Record<ArmsChartName, string> = { arms_forest: 'ΔCER vs the baseline arm (forest plot)', arms_gain_vs_k: 'ΔCER vs top-k' };

export interface ArmsChart {
  name: ArmsChartName;
  title: string;
  spec: VegaLiteSpec;
}

const ALL = 'All datasets';

export function loadArmsTemplate(name: ArmsChartName): VegaLiteSpec {
  return JSON.parse(readFileSync(path.join(CHART_TEMPLATE_DIR, 'arms', TEMPLATE[name]), 'utf8')) as VegaLiteSpec;
}

function fill(name: ArmsChartName, rows: Array<Record<string, unknown>>): ArmsChart {
  const spec = loadArmsTemplate(name);
  spec.data = { values: rows };
  spec.config = CHART_CONFIG;
  return { name, title: TITLES[name], spec };
}

const armLabel = (a: ArmResult) => (a.upper_bound ? `${a.name} † (upper bound)` : a.name);

/** The scopes a table or chart shows: each dataset, plus the pooled figures when there is more than one. */
type ArmsScope = { label: string; of: (r: ArmResult) => ArmMetrics | undefined };

function scopes(a: ArmsAnalysis): ArmsScope[] {
  const per = a.datasets.map((ds) => ({ label: ds, of: (r: ArmResult) => r.datasets[ds] }));
  return a.datasets.length > 1 ? [...per, { label: ALL, of: (r: ArmResult) => r }] : per;
}

type ForestFigure = Pick<HeldComparison, 'delta_cer' | 'ci' | 'p_holm' | 'n_paired'>;

/** An arm's comparison with the baseline in a scope: its `vs_baseline` (ΔCER), or with cMER primary its ΔcMER contrast. */
function vsBaseline(a: ArmsAnalysis, arm: ArmResult, scope: ArmsScope): ForestFigure | null | undefined {
  if (a.primary_metric !== 'cmer') return scope.of(arm)?.vs_baseline;
  const c = a.contrasts.find((x) => x.arm === arm.name && x.vs === a.baseline);
  return c && (scope.label === ALL ? c : c.datasets[scope.label]);
}

function forestRows(a: ArmsAnalysis): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  scopes(a).forEach((scope, dataset_order) => {
    a.arms.forEach((arm, arm_order) => {
      const v = vsBaseline(a, arm, scope);
      if (!v || v.delta_cer === null) return;
      rows.push({
        dataset: scope.label,
        dataset_order,
        arm: arm.name,
        arm_label: armLabel(arm),
        arm_order,
        kind: arm.upper_bound ? 'upper bound' : 'arm',
        delta_cer: v.delta_cer,
        ci_lo: v.ci?.[0] ?? null,
        ci_hi: v.ci?.[1] ?? null,
        p_holm: v.p_holm,
        n: v.n_paired,
      });
    });
  });
  return rows;
}

/**
 * Arms that differ only in top_k: grouped by arm.json's k_group (a hash of every setting but k, rerank / MMR /
 * min_score / temperature included); arm.json files written before k_group existed group by what they say.
 */
export function topKGroups(arms: ArmResult[]): ArmResult[][] {
  const groups = new Map<string, ArmResult[]>();
  for (const arm of arms) {
    if (arm.retrieval?.top_k === null || arm.retrieval?.top_k === undefined) continue;
    const key = arm.retrieval.k_group ?? JSON.stringify([arm.prompt, arm.retrieval.mode, arm.model, arm.guard_config, arm.upper_bound]);
    groups.set(key, [...(groups.get(key) ?? []), arm]);
  }
  return [...groups.values()].filter((g) => new Set(g.map((x) => x.retrieval!.top_k)).size >= 2);
}

function gainRows(a: ArmsAnalysis): Array<Record<string, unknown>> {
  const groups = topKGroups(a.arms);
  const rows: Array<Record<string, unknown>> = [];
  for (const scope of scopes(a)) {
    groups.forEach((g, gi) => {
      const series = groups.length > 1 ? `${scope.label} · ${g[0].retrieval!.mode} #${gi + 1}` : scope.label;
      for (const arm of [...g].sort((x, y) => x.retrieval!.top_k! - y.retrieval!.top_k!)) {
        const m = scope.of(arm);
        if (!m) continue;
        const v = m.vs_baseline;
        // The baseline itself (when it is one of the k arms) sits at ΔCER 0 by definition.
        const delta = arm.is_baseline ? 0 : (v?.delta_cer ?? null);
        if (delta === null) continue;
        rows.push({
          series,
          arm: arm.name,
          top_k: arm.retrieval!.top_k,
          delta_cer: delta,
          ci_lo: v?.ci?.[0] ?? null,
          ci_hi: v?.ci?.[1] ?? null,
        });
      }
    });
  }
  return rows;
}

/** The forest plot of ΔcMER contrasts: its titles and axis say ΔcMER (the rows carry it in `delta_cer`). */
function inCmer(c: ArmsChart): ArmsChart {
  const relabel = (t: string) => t.replaceAll('ΔCER', 'ΔcMER');
  return { ...c, title: relabel(c.title), spec: JSON.parse(relabel(JSON.stringify(c.spec))) as VegaLiteSpec };
}

/** The section's charts that have data (the gain-vs-k chart only when arms differ only in top_k). */
export function buildArmsCharts(a: ArmsAnalysis): ArmsChart[] {
  const charts: ArmsChart[] = [];
  const forest = forestRows(a);
  if (forest.length > 0) charts.push(a.primary_metric === 'cmer' ? inCmer(fill('arms_forest', forest)) : fill('arms_forest', forest));
  const gain = gainRows(a);
  if (gain.length > 0) charts.push(fill('arms_gain_vs_k', gain));
  return charts;
}

const rateCiF = (ci: [number, number] | null) => (ci ? `[${(ci[0] * 100).toFixed(2)}, ${(ci[1] * 100).toFixed(2)}%]` : dash);
const pF = (p: number | null | undefined) => (p === null || p === undefined ? dash : p < 0.0001 ? '<0.0001' : p.toFixed(4));

/** A table column: its head, its cell, and whether the study has the figure at all (a column of "—" is left out). */
interface ArmColumn {
  head: string;
  cell: (arm: ArmResult, m: ArmMetrics) => string;
  shown?: (ms: ArmMetrics[]) => boolean;
}

type Extra = Record<string, unknown>;
const extra = (m: ArmMetrics, key: string): unknown => (m as unknown as Extra)[key];
const has = (key: string) => (ms: ArmMetrics[]) => ms.some((m) => extra(m, key) !== undefined && extra(m, key) !== null);
const num = (x: unknown): number | null => (typeof x === 'number' ? x : null);
const prefF = (x: unknown) => {
  const p = x as { score?: number | null; ci95?: [number, number] | null } | null | undefined;
  if (!p || typeof p.score !== 'number') return dash;
  const f = (v: number) => `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(4)}`;
  return `${f(p.score)} ${p.ci95 ? `[${f(p.ci95[0])}, ${f(p.ci95[1])}]` : dash}`;
};
/** arms.json's bounded metrics (cMER / wMER, micro and macro) and preference score, shown when the analysis wrote them. */
const METRIC_COLUMNS: ArmColumn[] = [
  ...(
    [
      ['cmer', 'cMER'],
      ['cmer_macro', 'cMER macro'],
      ['wmer', 'wMER'],
      ['wmer_macro', 'wMER macro'],
    ] as const
  ).map(([key, head]): ArmColumn => ({ head, cell: (_, m) => pctF(num(extra(m, key))), shown: has(key) })),
  { head: 'Preference vs OCR [95% CI]', cell: (_, m) => prefF(extra(m, 'preference')), shown: has('preference') },
];

const ARM_COLUMNS: ArmColumn[] = [
  { head: 'Arm', cell: (arm) => (arm.is_baseline ? `**${armLabel(arm)}** (baseline)` : armLabel(arm)) },
  { head: 'Lines', cell: (_, m) => String(m.lines) },
  { head: 'CER [95% CI]', cell: (_, m) => `${pctF(m.cer)} ${rateCiF(m.cer_ci)}` },
  { head: 'WER [95% CI]', cell: (_, m) => `${pctF(m.wer)} ${rateCiF(m.wer_ci)}` },
  ...METRIC_COLUMNS,
  { head: 'Raw CER', cell: (_, m) => pctF(m.raw_cer) },
  {
    head: 'ΔCER vs baseline [95% CI]',
    cell: (_, m) => (m.vs_baseline ? `${ppF(m.vs_baseline.delta_cer)} ${ciOr(m.vs_baseline.ci)}` : dash),
  },
  {
    head: 'p / p (Holm)',
    cell: (arm, m) =>
      m.vs_baseline ? `${pF(m.vs_baseline.p)} / ${arm.upper_bound ? 'n/a (upper bound)' : pF(m.vs_baseline.p_holm)}` : dash,
  },
  { head: 'ΔCER vs OCR [95% CI]', cell: (_, m) => `${ppF(m.vs_ocr.delta_cer)} ${ciOr(m.vs_ocr.ci)}` },
  { head: 'Improved / unchanged / worsened', cell: (_, m) => `${m.improved} / ${m.unchanged} / ${m.worsened}` },
  { head: 'Guard fell back', cell: (_, m) => (m.guard ? pctF(m.guard.fell_back, 1) : dash) },
  { head: 'Verbatim gold retrieved', cell: (_, m) => pctF(m.verbatim_gold_rate, 1) },
];

function armTables(a: ArmsAnalysis): Block[] {
  const blocks: Block[] = [];
  for (const scope of scopes(a)) {
    const arms = a.arms.filter((r) => scope.of(r));
    const ms = arms.map((r) => scope.of(r)!);
    const cols = ARM_COLUMNS.filter((c) => !c.shown || c.shown(ms));
    blocks.push(
      { kind: 'h3', text: scope.label },
      labelledTable(
        cols.map((c) => c.head),
        arms.map((r, i) => cols.map((c) => c.cell(r, ms[i]))),
      ),
      ...emptyCellNote(ms.flatMap((m) => [m.ci_reason, m.vs_baseline?.reason, m.vs_ocr.reason])),
    );
  }
  return blocks;
}

function bandTable(a: ArmsAnalysis): Block[] {
  const rows = a.arms.map((arm) => [
    armLabel(arm),
    ...OCR_CER_BANDS.map((b) => {
      const c = arm.by_band[b];
      return c.lines === 0 ? dash : `${c.improved} / ${c.unchanged} / ${c.worsened}`;
    }),
  ]);
  return [
    { kind: 'h3', text: 'Lines improved / unchanged / worsened by OCR-CER band (all datasets)' },
    {
      kind: 'table',
      head: ['Arm', ...OCR_CER_BANDS.map((b) => `OCR CER ${b}`)],
      rows,
      align: ['l', ...OCR_CER_BANDS.map(() => 'r' as const)],
    },
  ];
}

function guardTable(a: ArmsAnalysis): Block[] {
  const guarded = a.arms.filter((r) => r.guard);
  if (guarded.length === 0) return [];
  const rows = guarded.map((r) => {
    const g = r.guard!;
    const reasons = Object.entries(g.by_reason)
      .map(([k, v]) => `${k} ${pctF(v, 1)}`)
      .join(', ');
    return [armLabel(r), pctF(g.kept, 1), pctF(g.trimmed, 1), pctF(g.fell_back, 1), reasons || dash, `${pctF(r.raw_cer)} → ${pctF(r.cer)}`];
  });
  return [
    { kind: 'h3', text: 'Over-correction guard (all datasets)' },
    {
      kind: 'table',
      head: ['Arm', 'Kept', 'Trimmed', 'Fell back', 'Fell back by reason', 'CER raw → guarded'],
      rows,
      align: ['l', 'r', 'r', 'r', 'l', 'r'],
    },
  ];
}

/** Per dataset, what the corpus held out of its source (leakage control); nothing when the analysis was not told. */
function exclusionBlocks(a: ArmsAnalysis): Block[] {
  if (!a.exclusions || a.exclusions.length === 0) return [];
  return [
    { kind: 'h3', text: 'Excluded from the retrieval corpus (leakage control)' },
    { kind: 'list', items: a.exclusions.map((e) => `${e.dataset} → ${exclusionText(e)}`) },
  ];
}

function introBlock(a: ArmsAnalysis): Block {
  const n = a.arms.length;
  const upper = a.arms.some((r) => r.upper_bound)
    ? ' † marks an upper bound (retrieval with the gold line as the query), not a method.'
    : '';
  const skipped = a.skipped.length ? ` Skipped: ${a.skipped.map((s) => `${s.arm} (${s.reason})`).join('; ')}.` : '';
  return {
    kind: 'p',
    text:
      `${n} arm(s) compared with the baseline arm **${a.baseline}** on the same lines (paired by sample), ` +
      `every figure under the ${a.profiles.find((p) => p.primary)?.profile ?? 'nfc'} profile (the other profiles: their own table). ` +
      'ΔCER = CER(arm) − CER(reference), negative = fewer errors; 95% CIs from a paired block bootstrap over clusters of lines ' +
      `(${a.methods.bootstrap.iterations} resamples, seed ${a.methods.bootstrap.seed}); p = block permutation test of that ΔCER, ` +
      "p (Holm) = its planned contrast's in the one family above (an upper bound stays out). Raw CER scores the model output before trimming and the guard. " +
      `Verbatim gold retrieved = share of lines whose normalised gold line appears in the retrieved context (character similarity ≥ 0.9).${upper}${skipped}`,
  };
}

/**
 * The Arms section for report.md / report.html. `charts` are the rendered `buildArmsCharts` charts
 * (analysis/report/report.ts renders and writes them next to the report's other charts).
 */
/** Arms over `infer.max_failed_share` (analysis/score/failed-share.ts), named before any figure. Nothing when none is. */
function invalidArmBlocks(a: ArmsAnalysis): Block[] {
  const items = a.arms.flatMap((r) => (r.invalid_reason ? [r.invalid_reason] : []));
  if (items.length === 0) return [];
  return [
    {
      kind: 'p',
      text: '**Not valid — these arms failed on too many lines.** Their failed lines score as the raw OCR, so their figures below measure the failures, not the method.',
    },
    { kind: 'list', items },
  ];
}

export function armsSection(a: ArmsAnalysis, charts: RenderedChart[]): Block[] {
  return [
    { kind: 'h2', text: 'Arms' },
    ...fewClustersBlocks(fewClustersWarning('Too small for intervals', reasonsIn([a.arms, a.contrasts, a.provenance ?? null]))),
    ...invalidArmBlocks(a),
    ...findingsBlocks(a),
    ...planBlocks(a),
    introBlock(a),
    ...exclusionBlocks(a),
    ...armTables(a),
    ...bandTable(a),
    ...guardTable(a),
    ...replicateBlocks(a),
    ...usageBlocks(a),
    ...whenBlocks(a),
    ...armProfileBlocks(a),
    ...(a.provenance ? provenanceSection(a.provenance) : []),
    ...charts.map((chart): Block => ({ kind: 'chart', chart })),
  ];
}
