/**
 * Chart specs are data: Vega-Lite templates in analysis/charts/*.vl.json with a named data source
 * ("table"). `buildCharts` fills them with rows taken from the analysis documents, giving complete,
 * self-contained specs (written as <ragDir>/charts/<name>.vl.json, openable in the Vega editor).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OCR_CER_BANDS, SCORE_BUCKETS } from '../score/bands';
import { UNKNOWN_ERA } from '../score/eras';
import type { Skips } from '../../src/stages/shared/skips';
import { errorClassLabel, type ErrorClass } from '../../src/text/arabic';

export const CHART_TEMPLATE_DIR = path.dirname(fileURLToPath(import.meta.url));

export const CHART_NAMES = [
  'cer_by_arm',
  'delta_cer_by_score_bucket',
  'cer_by_ocr_band',
  'score_histogram',
  'era_distribution',
  'confusions',
  'error_classes',
] as const;
export type ChartName = (typeof CHART_NAMES)[number];

export type VegaLiteSpec = Record<string, unknown>;

export function loadTemplate(name: ChartName): VegaLiteSpec {
  return JSON.parse(readFileSync(path.join(CHART_TEMPLATE_DIR, `${name}.vl.json`), 'utf8')) as VegaLiteSpec;
}

/** Fonts with Arabic coverage first, so server-side (resvg) and browser rendering both shape Arabic. */
// DejaVu Sans covers Latin, Arabic, − ∅ ␣ → in one face (Noto Sans lacks the symbols), so resvg does not
// fall back to an arbitrary font mid-chart; browsers without it use the next families.
export const CHART_CONFIG = {
  font: 'DejaVu Sans, Noto Sans, Noto Sans Arabic, Arial, sans-serif',
  background: 'white',
  view: { stroke: '#ddd' },
  title: { anchor: 'start', fontSize: 14, subtitleColor: '#555' },
  axis: { labelFontSize: 11, titleFontSize: 12 },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 280 },
};

/** Replace the named data source with inline rows and add the shared config. */
export function fillTemplate(name: ChartName, rows: Array<Record<string, unknown>>): VegaLiteSpec {
  const spec = loadTemplate(name);
  spec.data = { values: rows };
  spec.config = CHART_CONFIG;
  return spec;
}

// ---------------------------------------------------------------------------------------------
// Documents → rows
// ---------------------------------------------------------------------------------------------

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ReportDocs {
  metrics: Json;
  comparison: Json;
  errorChanges: Json | null;
  datasets: Array<{ name: string; metrics: Json; comparison: Json; retrieval: Json | null; errorChanges: Json | null }>;
  /** export/skipped.json: the input lines/files the export left out, per dataset (absent when none). */
  skippedInputs?: Record<string, Skips> | null;
  /** lines.json (the Lines view and the examples), absent when the analysis ran without it. */
  lines?: Json | null;
  /** error_classes.json, absent when the analysis ran without the Lines view. */
  errorClasses?: Json | null;
}

/** The series of the default arms' CER charts: the raw OCR (where every arm starts) and the two default arms. */
export const DEFAULT_ARM_SERIES = [
  { key: 'ocr', label: 'Raw OCR', order: 0 },
  { key: 'phase2', label: 'zero_shot', order: 1 },
  { key: 'phase5', label: 'rag', order: 2 },
] as const;

const ALL = 'All datasets';

function cerByArm(d: ReportDocs) {
  const rows: Array<Record<string, unknown>> = [];
  const push = (dataset: string, dataset_order: number, c: Json) => {
    const b = c.bootstrap;
    const values: Record<string, number | null> = {
      ocr: c.ocr_baseline?.cer ?? null,
      phase2: c.phase2_baseline?.cer ?? null,
      phase5: c.phase5_corrected?.cer ?? null,
    };
    for (const k of DEFAULT_ARM_SERIES) {
      if (values[k.key] === null) continue;
      const ci = b?.cer_ci95?.[k.key] ?? null;
      rows.push({
        dataset,
        dataset_order,
        arm: k.label,
        order: k.order,
        cer: values[k.key],
        ci_lo: ci?.[0] ?? null,
        ci_hi: ci?.[1] ?? null,
        n: c.meta?.n_paired ?? null,
      });
    }
  };
  d.datasets.forEach((ds, i) => push(ds.name, i, ds.comparison));
  if (d.datasets.length > 1) push(ALL, d.datasets.length, { ...d.comparison.overall, meta: { n_paired: d.comparison.meta.n_paired } });
  return rows;
}

function deltaByBucket(d: ReportDocs) {
  const rows: Array<Record<string, unknown>> = [];
  for (const ds of d.datasets) {
    const by = ds.retrieval?.retrieval_by_error_type?.by_score_bucket;
    if (!by) continue;
    SCORE_BUCKETS.forEach((b, order) => {
      const g = by[b];
      if (g && g.n_samples > 0 && g.delta_cer !== null)
        rows.push({ dataset: ds.name, bucket: b, order, delta_cer: g.delta_cer, n: g.n_samples });
    });
  }
  return rows;
}

function cerByBand(d: ReportDocs) {
  const rows: Array<Record<string, unknown>> = [];
  const push = (dataset: string, dataset_order: number, by: Json | undefined) => {
    if (!by) return;
    OCR_CER_BANDS.forEach((band, band_order) => {
      const g = by[band];
      if (!g || g.n_samples === 0) return;
      const vals: Record<string, number | null> = { ocr: g.ocr_cer, phase2: g.phase2_cer, phase5: g.phase5_cer };
      for (const k of DEFAULT_ARM_SERIES) {
        if (vals[k.key] === null || vals[k.key] === undefined) continue;
        rows.push({ dataset, dataset_order, band, band_order, arm: k.label, order: k.order, cer: vals[k.key], n: g.n_samples });
      }
    });
  };
  d.datasets.forEach((ds, i) => push(ds.name, i, ds.comparison.by_ocr_cer_band));
  if (d.datasets.length > 1) push(ALL, d.datasets.length, d.comparison.overall?.by_ocr_cer_band);
  return rows;
}

function histogram(d: ReportDocs) {
  const rows: Array<Record<string, unknown>> = [];
  for (const ds of d.datasets) {
    for (const b of ds.retrieval?.score_histogram?.bins ?? []) {
      if (b.count > 0) rows.push({ dataset: ds.name, from: b.from, to: b.to, count: b.count });
    }
  }
  return rows;
}

function eras(d: ReportDocs) {
  const rows: Array<Record<string, unknown>> = [];
  for (const ds of d.datasets) {
    const counts: Json | undefined = ds.retrieval?.corpus_date_counts;
    if (!counts) continue;
    const total = Object.values(counts).reduce((a: number, b) => a + Number(b), 0);
    if (total === 0) continue;
    Object.keys(counts).forEach((era, order) => {
      const n = Number(counts[era]);
      if (n > 0) rows.push({ dataset: ds.name, era, order: era === UNKNOWN_ERA ? 99 : order, count: n, share: n / total });
    });
  }
  return rows;
}

const LRM = '\u200e';
const show = (c: string) => (c === '' ? '∅' : c === ' ' ? '␣' : c);

/** "gold → output" with left-to-right marks so Arabic letters do not reorder around the arrow. */
export function confusionLabel(ref: string, hyp: string): string {
  return `${LRM}${show(ref)}${LRM} → ${LRM}${show(hyp)}${LRM}`;
}

function confusions(d: ReportDocs, top = 15) {
  const ec = d.errorChanges?.phase5;
  if (!ec) return [];
  const merged = new Map<string, { type: string; ref: string; hyp: string; category: string; fixed: number; introduced: number }>();
  for (const kind of ['fixed', 'introduced'] as const) {
    for (const c of ec.top_confusions?.[kind] ?? []) {
      const k = `${c.type}|${c.ref}|${c.hyp}`;
      const cur = merged.get(k) ?? { type: c.type, ref: c.ref, hyp: c.hyp, category: c.category, fixed: 0, introduced: 0 };
      cur[kind] += c.count;
      merged.set(k, cur);
    }
  }
  const ranked = [...merged.values()]
    .sort(
      (a, b) =>
        b.fixed + b.introduced - (a.fixed + a.introduced) ||
        (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) ||
        (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0) ||
        (a.hyp < b.hyp ? -1 : a.hyp > b.hyp ? 1 : 0),
    )
    .slice(0, top);
  const rows: Array<Record<string, unknown>> = [];
  ranked.forEach((c, rank) => {
    for (const kind of ['fixed', 'introduced'] as const) {
      rows.push({ label: confusionLabel(c.ref, c.hyp), rank, kind, count: c[kind], type: c.type, category: c.category });
    }
  });
  return rows;
}

/** Errors by class for OCR and each arm (classes without any error left out). */
function errorClasses(ec: Json | null | undefined) {
  if (!ec) return [];
  const sources = Object.keys(ec.errors);
  const used = (ec.classes as ErrorClass[]).filter((c) => sources.some((s) => ec.errors[s][c] > 0));
  return used.flatMap((c, class_order) =>
    sources.map((s, source_order) => ({
      label: errorClassLabel(c),
      class_order,
      source: s === 'ocr' ? 'OCR' : s,
      source_order,
      errors: ec.errors[s][c],
      fixed: ec.fixed[s]?.[c] ?? null,
      introduced: ec.introduced[s]?.[c] ?? null,
    })),
  );
}

export interface BuiltChart {
  name: ChartName;
  title: string;
  spec: VegaLiteSpec;
}

const TITLES: Record<ChartName, string> = {
  cer_by_arm: 'CER by arm and dataset (95% CI)',
  delta_cer_by_score_bucket: 'ΔCER by retrieval-score bucket',
  cer_by_ocr_band: 'CER by baseline (raw OCR) CER band',
  score_histogram: 'Top-1 retrieval score histogram',
  era_distribution: 'Era distribution of top-1 hits',
  confusions: 'Top confusions fixed vs introduced',
  error_classes: 'Errors by class: OCR and each arm vs gold',
};

/** The error-class chart alone (a report without the design files has no data for the others); null without data. */
export function errorClassChart(ec: Json | null | undefined): BuiltChart | null {
  const rows = errorClasses(ec);
  return rows.length === 0 ? null : { name: 'error_classes', title: TITLES.error_classes, spec: fillTemplate('error_classes', rows) };
}

/** Every chart that has data, in CHART_NAMES order; `skipped` names the ones without data. */
export function buildCharts(d: ReportDocs): { charts: BuiltChart[]; skipped: ChartName[] } {
  const data: Record<ChartName, Array<Record<string, unknown>>> = {
    cer_by_arm: cerByArm(d),
    delta_cer_by_score_bucket: deltaByBucket(d),
    cer_by_ocr_band: cerByBand(d),
    score_histogram: histogram(d),
    era_distribution: eras(d),
    confusions: confusions(d),
    error_classes: errorClasses(d.errorClasses),
  };
  const charts: BuiltChart[] = [];
  const skipped: ChartName[] = [];
  for (const name of CHART_NAMES) {
    if (data[name].length === 0) skipped.push(name);
    else charts.push({ name, title: TITLES[name], spec: fillTemplate(name, data[name]) });
  }
  return { charts, skipped };
}
