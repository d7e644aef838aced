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
import { ciOr, dash, fewClustersBlocks, pctF, ppF, type Block, type RenderedChart } from '../blocks';
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
function scopes(a: ArmsAnalysis): Array<{ label: string; of: (r: ArmResult) => ArmMetrics | undefined }> {
  const per = a.datasets.map((ds) => ({ label: ds, of: (r: ArmResult) => r.datasets[ds] }));
  return a.datasets.length > 1 ? [...per, { label: ALL, of: (r: ArmResult) => r }] : per;
}

function forestRows(a: ArmsAnalysis): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  scopes(a).forEach((scope, dataset_order) => {
    a.arms.forEach((arm, arm_order) => {
      const v = scope.of(arm)?.vs_baseline;
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

/** The section's charts that have data (the gain-vs-k chart only when arms differ only in top_k). */
export function buildArmsCharts(a: ArmsAnalysis): ArmsChart[] {
  const charts: ArmsChart[] = [];
  const forest = forestRows(a);
  if (forest.length > 0) charts.push(fill('arms_forest', forest));
  const gain = gainRows(a);
  if (gain.length > 0) charts.push(fill('arms_gain_vs_k', gain));
  return charts;
}

const rateCiF = (ci: [number, number] | null) => (ci ? `[${(ci[0] * 100).toFixed(2)}, ${(ci[1] * 100).toFixed(2)}%]` : dash);
const pF = (p: number | null | undefined) => (p === null || p === undefined ? dash : p < 0.0001 ? '<0.0001' : p.toFixed(4));

function armRow(arm: ArmResult, m: ArmMetrics): string[] {
  const vb = m.vs_baseline;
  const guard = m.guard ? pctF(m.guard.fell_back, 1) : dash;
  return [
    arm.is_baseline ? `**${armLabel(arm)}** (baseline)` : armLabel(arm),
    String(m.lines),
    `${pctF(m.cer)} ${rateCiF(m.cer_ci)}`,
    `${pctF(m.wer)} ${rateCiF(m.wer_ci)}`,
    pctF(m.raw_cer),
    vb ? `${ppF(vb.delta_cer)} ${ciOr(vb.ci, vb.reason)}` : dash,
    vb ? `${pF(vb.p)} / ${arm.upper_bound ? 'n/a (upper bound)' : pF(vb.p_holm)}` : dash,
    `${ppF(m.vs_ocr.delta_cer)} ${ciOr(m.vs_ocr.ci, m.vs_ocr.reason)}`,
    `${m.improved} / ${m.unchanged} / ${m.worsened}`,
    guard,
    pctF(m.verbatim_gold_rate, 1),
  ];
}

const ARM_HEAD = [
  'Arm',
  'Lines',
  'CER [95% CI]',
  'WER [95% CI]',
  'Raw CER',
  'ΔCER vs baseline [95% CI]',
  'p / p (Holm)',
  'ΔCER vs OCR [95% CI]',
  'Improved / unchanged / worsened',
  'Guard fell back',
  'Verbatim gold retrieved',
];

function armTables(a: ArmsAnalysis): Block[] {
  const blocks: Block[] = [];
  for (const scope of scopes(a)) {
    const rows = a.arms.filter((r) => scope.of(r)).map((r) => armRow(r, scope.of(r)!));
    blocks.push(
      { kind: 'h3', text: scope.label },
      { kind: 'table', head: ARM_HEAD, rows, align: ['l', ...ARM_HEAD.slice(1).map(() => 'r' as const)] },
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
      `${n} arm(s) compared with the baseline arm **${a.baseline}** on the same lines (paired by sample). ` +
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
