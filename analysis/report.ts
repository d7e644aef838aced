/**
 * report.md and report.html (opens from disk, no network; the Lines view reads its lines from report-lines/
 * beside it) from the analysis documents already on disk, so `phase5 report` can regenerate it in seconds
 * without re-scoring.
 *
 * Charts: Vega-Lite specs (analysis/charts) filled with data → <phase5Dir>/charts/<name>.vl.json, .svg
 * (vega View.toSVG) and .png (resvg). report.md links the PNGs; report.html inlines the Vega runtime
 * (node_modules/vega/build/vega.min.js) and the compiled Vega specs and renders them as SVG in the browser,
 * with the server-rendered SVG as a <noscript> fallback.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { writeFileAtomic } from '../src/io/jsonl';
import { describeKinds, totalSkips, type Skips } from '../src/stages/skips';
import type { ArmsAnalysis } from './arms';
import { ARMS_CHART_NAMES, armsSection, buildArmsCharts } from './arms-report';
import { buildCharts, CHART_NAMES, confusionLabel, errorClassChart, type ReportDocs, type VegaLiteSpec } from './charts';
import { ERROR_CATEGORIES } from './error-changes';
import { OCR_CER_BANDS, SCORE_BUCKETS } from './format';
import { ciF, dash, pctF, ppF, type Block, type RenderedChart } from './blocks';
import { linesView } from './explorer/embed';
import { readLinesJson } from './lines-json';
import { writeLinesSideFiles } from './explorer/side-files';
import { compileToVega, renderSvg, svgToPng } from './render';
import { errorClassBlocks, exampleSectionBlocks } from './report-lines';
import { profileBlocks } from './report-profiles';
import type { RenderReportOptions } from './types';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const require = createRequire(import.meta.url);

/** node_modules/vega/build/vega.min.js (the package exports only its ESM entry, which sits beside it). */
export function vegaMinJsPath(): string {
  return path.join(path.dirname(require.resolve('vega')), 'vega.min.js');
}

function readJsonSync(file: string): Json {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Json;
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

/** Load what the report needs; throws a clear error when the analysis has not run yet. */
export function loadReportDocs(phase5Dir: string): ReportDocs {
  const mFile = path.join(phase5Dir, 'metrics.json');
  const cFile = path.join(phase5Dir, 'comparison.json');
  for (const f of [mFile, cFile]) if (!existsSync(f)) throw new Error(`${f} not found: run the analyze stage first`);
  const metrics = readJsonSync(mFile);
  const comparison = readJsonSync(cFile);
  const ecFile = path.join(phase5Dir, 'error_changes.json');
  const names: string[] = metrics.meta?.datasets ?? [];
  const opt = (f: string) => (existsSync(f) ? readJsonSync(f) : null);
  return {
    metrics,
    comparison,
    errorChanges: opt(ecFile),
    skippedInputs: opt(path.join(phase5Dir, 'export', 'skipped.json')) as Record<string, Skips> | null,
    ...loadLineDocs(phase5Dir),
    datasets: names.map((name) => {
      const dir = path.join(phase5Dir, name);
      return {
        name,
        metrics: readJsonSync(path.join(dir, 'metrics.json')),
        comparison: readJsonSync(path.join(dir, 'comparison_vs_phase2.json')),
        retrieval: opt(path.join(dir, 'retrieval_analysis.json')),
        errorChanges: opt(path.join(dir, 'error_changes.json')),
      };
    }),
  };
}

/** lines.json and error_classes.json of `dir` (null each when the analysis ran without the Lines view). */
function loadLineDocs(dir: string): { lines: Json | null; errorClasses: Json | null } {
  const opt = (f: string, read: (f: string) => Json) => (existsSync(f) ? read(f) : null);
  return { lines: opt(path.join(dir, 'lines.json'), readLinesJson), errorClasses: opt(path.join(dir, 'error_classes.json'), readJsonSync) };
}

// ---------------------------------------------------------------------------------------------
// A tiny document model rendered to both Markdown and HTML
// ---------------------------------------------------------------------------------------------

const numF = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? dash : x.toFixed(d).replace('-', '−'));
const netF = (x: number) => (x > 0 ? `+${x}` : x < 0 ? `−${-x}` : '±0');
const relF = (x: number | null | undefined) => (x === null || x === undefined ? dash : `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(1)}%`);

function buildBlocks(d: ReportDocs, charts: RenderedChart[], skipped: string[], title: string): Block[] {
  return [
    ...introBlocks(d, title),
    ...validityBlocks(d),
    ...skippedInputBlocks(d),
    ...mainResultBlocks(d),
    ...lineEffectBlocks(d),
    ...leakageBlocks(d),
    ...retrievalBlocks(d),
    ...bandBlocks(d),
    ...errorChangeBlocks(d),
    ...errorClassBlocks(d.errorClasses),
    ...normalisedBlocks(d),
    ...profileBlocks(d.metrics),
    ...chartBlocks(charts, skipped),
    ...(d.lines ? [{ kind: 'lines', doc: d.lines } as Block] : []),
    ...exampleSectionBlocks(d.lines),
    ...noteBlocks(d),
  ];
}

function introBlocks(d: ReportDocs, title: string): Block[] {
  const meta = d.metrics.meta ?? {};
  return [
    { kind: 'h1', text: title },
    {
      kind: 'p',
      text:
        `Inputs as of ${meta.generated_at}. Model: ${meta.model ?? dash}; prompt ${meta.prompt_version ?? dash}; embedding model: ${meta.embedding_model ?? dash}; ` +
        `top-k ${meta.top_k ?? dash}; corpus ${meta.corpus_size ?? dash} sentences; ${meta.num_samples} OCR lines in ${d.datasets.length} dataset(s).`,
    },
    {
      kind: 'p',
      text: 'Phase 5 (RAG over OpenITI) is compared only with Phase 2 (zero-shot, same model). Key metric: ΔCER = Phase 5 CER − Phase 2 CER; negative = improvement. Raw OCR is shown for reference.',
    },
  ];
}

/** Input lines/files the export left out, per dataset of the report; nothing (not even a heading) when none. */
function skippedInputBlocks(d: ReportDocs): Block[] {
  const names = new Set(d.datasets.map((ds) => ds.name));
  const items = Object.entries(d.skippedInputs ?? {})
    .filter(([name, s]) => names.has(name) && totalSkips(s) > 0)
    .map(([name, s]) => `${name}: ${totalSkips(s)} skipped — ${describeKinds(s, (f) => (path.isAbsolute(f) ? path.basename(f) : f))}`);
  if (items.length === 0) return [];
  return [
    { kind: 'h2', text: 'Skipped inputs' },
    { kind: 'p', text: 'Input lines or files the export left out (counted by kind, with the first examples); every other line was scored.' },
    { kind: 'list', items },
  ];
}

/** At the top, before any figure: which comparisons are not valid (too many failed lines) and why. Nothing when all are. */
function validityBlocks(d: ReportDocs): Block[] {
  const invalid = [
    ...(d.comparison.overall?.valid === false && d.datasets.length > 1 ? [`All datasets: ${d.comparison.overall.invalid_reason}`] : []),
    ...d.datasets.filter((ds) => ds.comparison.valid === false).map((ds) => `${ds.name}: ${ds.comparison.invalid_reason}`),
  ];
  if (invalid.length === 0) return [];
  return [
    { kind: 'p', text: '**Not valid — no headline ΔCER.** Too many lines failed in at least one condition; the figures below score those lines as the raw OCR and measure the failures, not the method.' },
    { kind: 'list', items: invalid },
  ];
}

/** One row of the main table from a comparison document (a dataset's or the overall one). */
function mainRow(name: string, x: Json, ci: [number, number] | null, n: number | null): string[] {
  if (x.valid === false) {
    const na = 'not valid';
    return [name, String(n ?? dash), pctF(x.ocr_baseline?.cer), pctF(x.phase2_baseline?.cer), pctF(x.phase5_corrected?.cer), na, na, na, pctF(x.phase2_baseline?.wer), pctF(x.phase5_corrected?.wer), na];
  }
  return [
    name,
    String(n ?? dash),
    pctF(x.ocr_baseline?.cer),
    pctF(x.phase2_baseline?.cer),
    pctF(x.phase5_corrected?.cer),
    ppF(x.delta?.cer_absolute),
    ciF(ci),
    relF(x.delta?.cer_relative_pct),
    pctF(x.phase2_baseline?.wer),
    pctF(x.phase5_corrected?.wer),
    ppF(x.delta?.wer_absolute),
  ];
}

function mainResultBlocks(d: ReportDocs): Block[] {
  const c = d.comparison;
  const rows = d.datasets.map((ds) => mainRow(ds.name, ds.comparison, ds.comparison.bootstrap?.delta_cer?.ci95 ?? null, ds.comparison.meta?.n_paired ?? null));
  if (d.datasets.length > 1) rows.push(mainRow('**All datasets**', c.overall ?? {}, c.overall?.bootstrap?.delta_cer?.ci95 ?? null, c.meta?.n_paired ?? null));
  return [
    { kind: 'h2', text: 'Main results' },
    { kind: 'p', text: `Overall: ${c.overall?.interpretation ?? dash}` },
    {
      kind: 'table',
      head: ['Dataset', 'Lines', 'OCR CER', 'Phase 2 CER', 'Phase 5 CER', 'ΔCER', '95% CI', 'Rel.', 'Phase 2 WER', 'Phase 5 WER', 'ΔWER'],
      rows,
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
    { kind: 'list', items: d.datasets.map((ds) => `${ds.name}: ${ds.comparison.interpretation}`) },
  ];
}

function lineEffectBlocks(d: ReportDocs): Block[] {
  return [
    { kind: 'h2', text: 'Line-level effects and failures' },
    {
      kind: 'p',
      text: 'Help / harm: share of lines with fewer / more character errors than the raw OCR line. Failed corrections (error or empty output) are scored as identity (corrected = OCR).',
    },
    {
      kind: 'table',
      head: ['Dataset', 'Phase 5 help', 'Phase 5 harm', 'Phase 2 help', 'Phase 2 harm', 'P5 better than P2', 'P5 worse than P2', 'P5 failures', 'P2 failures'],
      rows: d.datasets.map((ds) => {
        const le = ds.comparison.line_effects ?? {};
        const f = ds.comparison.failures ?? {};
        return [ds.name, pctF(le.phase5_help_rate, 1), pctF(le.phase5_harm_rate, 1), pctF(le.phase2_help_rate, 1), pctF(le.phase2_harm_rate, 1),
          String(le.phase5_better_than_phase2 ?? dash), String(le.phase5_worse_than_phase2 ?? dash), String(ds.metrics.failures?.total ?? dash), String(f.phase2 ?? dash)];
      }),
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
  ];
}

function leakageBlocks(d: ReportDocs): Block[] {
  return [
    { kind: 'h2', text: 'Leakage check' },
    { kind: 'list', items: d.datasets.map((ds) => `${ds.name}: ${ds.retrieval?.leakage?.statement ?? 'no retrieval analysis'}`) },
  ];
}

function retrievalBlocks(d: ReportDocs): Block[] {
  const blocks: Block[] = [
    { kind: 'h2', text: 'Retrieval' },
    {
      kind: 'p',
      text: 'Score buckets of the top-1 cosine score. High / low half: samples split at the median top-1 score; improvement = Phase 2 CER − Phase 5 CER (positive = RAG helped). Spearman: top-1 score vs per-line improvement.',
    },
    {
      kind: 'table',
      head: ['Dataset', 'With retrieval', 'Zero results', 'Avg top-1', 'Avg top-3', ...SCORE_BUCKETS, 'Improvement high half', 'Improvement low half', 'Spearman'],
      rows: d.datasets.map((ds) => {
        const r = ds.retrieval ?? {};
        const s = r.retrieval_stats ?? {};
        const be = r.retrieval_by_error_type ?? {};
        return [ds.name, String(s.samples_with_any_retrieval ?? dash), String(s.samples_zero_results ?? dash), numF(s.avg_top1_score), numF(s.avg_top3_score),
          ...SCORE_BUCKETS.map((b) => String(s.score_distribution?.[b] ?? dash)),
          ppF(be.high_score_samples?.cer_improvement), ppF(be.low_score_samples?.cer_improvement), numF(be.correlation?.spearman, 3)];
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

function bandBlocks(d: ReportDocs): Block[] {
  const bands = d.comparison.overall?.by_ocr_cer_band ?? {};
  return [
    { kind: 'h2', text: 'By baseline CER band (raw OCR line CER, all datasets)' },
    {
      kind: 'table',
      head: ['Band', 'Lines', 'OCR CER', 'Phase 2 CER', 'Phase 5 CER', 'ΔCER', 'P5 help', 'P5 harm'],
      rows: OCR_CER_BANDS.map((b) => {
        const g = bands[b] ?? {};
        return [b, String(g.n_samples ?? 0), pctF(g.ocr_cer), pctF(g.phase2_cer), pctF(g.phase5_cer), ppF(g.delta_cer), pctF(g.phase5_help_rate, 1), pctF(g.phase5_harm_rate, 1)];
      }),
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
  ];
}

function errorChangeBlocks(d: ReportDocs): Block[] {
  const heading: Block = { kind: 'h2', text: 'Error changes (character alignment, all datasets)' };
  const ec = d.errorChanges;
  if (!ec) return [heading, { kind: 'p', text: 'Error analysis was not run (--no-error-analysis).' }];
  const t5 = ec.phase5.totals;
  const t2 = ec.phase2?.totals;
  return [
    heading,
    {
      kind: 'p',
      text:
        `Phase 5 fixed ${t5.fixed} of ${t5.ocr_errors} OCR character errors (${pctF(t5.fix_rate, 1)}) and introduced ${t5.introduced} (net ${netF(t5.net_error_change)}).` +
        (t2 ? ` Phase 2 fixed ${t2.fixed} (${pctF(t2.fix_rate, 1)}) and introduced ${t2.introduced} (net ${netF(t2.net_error_change)}).` : ''),
    },
    errorTypeTable(ec),
    { kind: 'list', items: [`Top fixed (gold → OCR): ${topConfusions(ec, 'fixed')}`, `Top introduced (gold → output): ${topConfusions(ec, 'introduced')}`] },
  ];
}

/** Errors by edit type, then by category (categories without errors left out). */
function errorTypeTable(ec: Json): Block {
  const typeRow = (label: string, x: Json, y: Json | undefined) => [label, String(x.ocr_errors), String(x.fixed), String(x.introduced), String(x.unchanged), pctF(x.fix_rate, 1),
    y ? String(y.fixed) : dash, y ? String(y.introduced) : dash];
  return {
    kind: 'table',
    head: ['Edit type / category', 'OCR errors', 'P5 fixed', 'P5 introduced', 'P5 unchanged', 'P5 fix rate', 'P2 fixed', 'P2 introduced'],
    rows: [
      ...Object.keys(ec.phase5.by_edit_type).map((k) => typeRow(k, ec.phase5.by_edit_type[k], ec.phase2?.by_edit_type?.[k])),
      ...ERROR_CATEGORIES.filter((k) => ec.phase5.by_category[k].ocr_errors + ec.phase5.by_category[k].introduced > 0).map((k) =>
        typeRow(`· ${k}`, ec.phase5.by_category[k], ec.phase2?.by_category?.[k])),
    ],
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  };
}

function topConfusions(ec: Json, kind: 'fixed' | 'introduced'): string {
  return (ec.phase5.top_confusions?.[kind] ?? []).slice(0, 10).map((x: Json) => `${confusionLabel(x.ref, x.hyp)} (${x.type}, ${x.category}): ${x.count}`).join('; ') || dash;
}

function normalisedBlocks(d: ReportDocs): Block[] {
  const m = d.metrics;
  if (!m.normalization) return [];
  return [
    { kind: 'h2', text: 'Secondary: Arabic-normalised metrics' },
    { kind: 'p', text: m.normalization.label },
    {
      kind: 'table',
      head: ['Dataset', 'OCR CER', 'Phase 2 CER', 'Phase 5 CER', 'ΔCER', 'Phase 2 WER', 'Phase 5 WER', 'ΔWER'],
      rows: d.datasets.map((ds) => {
        const n = ds.comparison.normalized ?? {};
        const o = ds.metrics.normalized?.ocr_baseline ?? {};
        return [ds.name, pctF(o.cer), pctF(n.phase2_baseline?.cer), pctF(n.phase5_corrected?.cer), ppF(n.delta?.cer_absolute),
          pctF(n.phase2_baseline?.wer), pctF(n.phase5_corrected?.wer), ppF(n.delta?.wer_absolute)];
      }),
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
  ];
}

function chartBlocks(charts: RenderedChart[], skipped: string[]): Block[] {
  const blocks: Block[] = [{ kind: 'h2', text: 'Charts' }, ...charts.map((chart): Block => ({ kind: 'chart', chart }))];
  if (skipped.length) blocks.push({ kind: 'p', text: `Not drawn (no data): ${skipped.join(', ')}.` });
  return blocks;
}

function noteBlocks(d: ReportDocs): Block[] {
  const sc = d.metrics.scoring ?? {};
  const boot = d.comparison.overall?.bootstrap;
  return [
    { kind: 'h2', text: 'Notes' },
    {
      kind: 'list',
      items: [
        `CER: ${sc.cer}. WER: ${sc.wer}. Text preparation: ${sc.text_preparation}.`,
        `Failed corrections: ${sc.failed_lines}.`,
        'Comparisons use the samples present in both conditions; metrics.json uses every Phase 5 line.',
        `Confidence intervals: ${boot?.method ?? 'bootstrap'}; ${boot?.iterations ?? dash} resamples, seed ${boot?.seed ?? dash}; the all-datasets interval resamples within each dataset.`,
      ],
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Renderers
// ---------------------------------------------------------------------------------------------

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function toMarkdown(blocks: Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case 'h1': out.push(`# ${b.text}`, ''); break;
      case 'h2': out.push(`## ${b.text}`, ''); break;
      case 'h3': out.push(`### ${b.text}`, ''); break;
      case 'p': out.push(b.text, ''); break;
      case 'list': out.push(...b.items.map((i) => `- ${i}`), ''); break;
      case 'table': {
        out.push(`| ${b.head.map(mdCell).join(' | ')} |`);
        out.push(`|${b.head.map((_, i) => (b.align?.[i] === 'r' ? '---:' : '---')).join('|')}|`);
        for (const r of b.rows) out.push(`| ${r.map(mdCell).join(' | ')} |`);
        out.push('');
        break;
      }
      case 'chart': out.push(`![${b.chart.title}](charts/${b.chart.name}.png)`, ''); break;
      case 'lines': out.push('## Lines', '', `Every one of the ${b.doc.meta.num_lines} lines, with each arm's output diffed against gold and the retrieved sentences, is in the Lines view of report.html (lines.json holds the same data).`, ''); break;
    }
  }
  return out.join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Markdown-ish bold in cells (`**x**`) → <strong>. */
const inline = (s: string) => esc(s).replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>');
/** JSON or JS safe inside a <script> element. */
const scriptSafe = (s: string) => s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

function toHtml(blocks: Block[], title: string): string {
  const body: string[] = [];
  const specs: string[] = [];
  const extra = { style: '', script: '' };
  for (const b of blocks) {
    switch (b.kind) {
      case 'h1': case 'h2': case 'h3': case 'p': body.push(`<${b.kind}>${inline(b.text)}</${b.kind}>`); break;
      case 'list': body.push(`<ul>${b.items.map((i) => `<li>${inline(i)}</li>`).join('')}</ul>`); break;
      case 'table': {
        const cls = (i: number) => (b.align?.[i] === 'r' ? ' class="num"' : '');
        body.push(
          `<table><thead><tr>${b.head.map((h, i) => `<th${cls(i)}>${inline(h)}</th>`).join('')}</tr></thead><tbody>` +
            b.rows.map((r) => `<tr>${r.map((x, i) => `<td${cls(i)}>${inline(x)}</td>`).join('')}</tr>`).join('') +
            '</tbody></table>',
        );
        break;
      }
      case 'chart': {
        const id = b.chart.name;
        body.push(
          `<figure class="chart" id="chart-${id}" aria-label="${esc(b.chart.title)}">` +
            `<div class="vega" data-chart="${id}" data-spec="spec-${id}"><noscript>${b.chart.svg}</noscript></div></figure>`,
        );
        specs.push(`<script type="application/json" id="spec-${id}">${scriptSafe(JSON.stringify(b.chart.vega))}</script>`);
        break;
      }
      case 'lines': {
        const v = linesView(b.doc);
        body.push(v.body);
        extra.style = v.style;
        extra.script = `<script>${scriptSafe(v.script)}</script>`;
        break;
      }
    }
  }
  const vegaJs = readFileSync(vegaMinJsPath(), 'utf8');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font-family: "Noto Sans", "Noto Sans Arabic", "DejaVu Sans", Arial, sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 0.5rem 0 1.2rem; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure.chart { margin: 1rem 0 2rem; }
.vega svg { max-width: 100%; height: auto; }
${extra.style}
</style>
</head>
<body>
${body.join('\n')}
${specs.join('\n')}
<script>${scriptSafe(vegaJs)}</script>
<script>
(function () {
  var els = document.querySelectorAll('.vega[data-spec]');
  var pending = els.length;
  function done() { if (--pending === 0) document.body.setAttribute('data-charts-rendered', 'true'); }
  if (pending === 0) document.body.setAttribute('data-charts-rendered', 'true');
  els.forEach(function (el) {
    try {
      var spec = JSON.parse(document.getElementById(el.getAttribute('data-spec')).textContent);
      var view = new vega.View(vega.parse(spec), { renderer: 'svg', container: el, hover: true });
      view.runAsync().then(function () { el.setAttribute('data-rendered', 'true'); done(); },
        function (e) { el.setAttribute('data-error', String(e)); console.error(e); done(); });
    } catch (e) { el.setAttribute('data-error', String(e)); console.error(e); done(); }
  });
})();
</script>
${extra.script}
</body>
</html>
`;
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

export interface RenderedReport {
  /** Files written, relative to phase5Dir. */
  files: string[];
  charts: string[];
  skipped: string[];
}

/** Write report.md, report.html and charts/* from the analysis documents in `phase5Dir` (+ the Arms section when given). */
export async function renderReport(phase5Dir: string, opts: RenderReportOptions = {}): Promise<RenderedReport> {
  const docs = loadReportDocs(phase5Dir);
  const title = opts.title ?? 'Phase 5 report: RAG (OpenITI) vs Phase 2 zero-shot';
  const { charts, skipped } = buildCharts(docs);
  const chartDir = path.join(phase5Dir, 'charts');
  const out = await renderCharts(chartDir, charts, opts.png !== false);
  // Charts without data this time must not linger from an earlier run.
  removeCharts(chartDir, CHART_NAMES.filter((n) => skipped.includes(n)));
  const arms = await renderArmsCharts(chartDir, opts, out.files);
  const blocks = buildBlocks(docs, out.rendered, skipped, title);
  if (opts.arms) blocks.splice(blocks.findIndex((b) => b.kind === 'h2' && b.text === 'Charts'), 0, ...armsSection(opts.arms, arms));
  writeFileAtomic(path.join(phase5Dir, 'report.md'), toMarkdown(blocks));
  writeFileAtomic(path.join(phase5Dir, 'report.html'), toHtml(blocks, title));
  out.files.push('report.md', 'report.html', ...writeLinesSideFiles(phase5Dir, docs.lines ?? null));
  return { files: out.files, charts: [...out.rendered, ...arms].map((c) => c.name), skipped };
}

/**
 * A report of the arms alone (a study whose results have no Phase 5 corrections of their own): report.md,
 * report.html and charts/ in `dir` (the analysis writes it to `<results>/study/`).
 */
export async function renderArmsReport(dir: string, arms: ArmsAnalysis, opts: RenderReportOptions = {}): Promise<RenderedReport> {
  const title = opts.title ?? 'Study arms report';
  const files: string[] = [];
  const chartDir = path.join(dir, 'charts');
  const rendered = await renderArmsCharts(chartDir, { ...opts, arms }, files);
  const docs = loadLineDocs(dir);
  const classChart = errorClassChart(docs.errorClasses);
  removeCharts(chartDir, classChart ? [] : ['error_classes']);
  const classes = await renderCharts(chartDir, classChart ? [classChart] : [], opts.png !== false);
  files.push(...classes.files);
  const blocks: Block[] = [
    { kind: 'h1', text: title },
    { kind: 'p', text: `Inputs as of ${arms.generated_at}; datasets: ${arms.datasets.join(', ')}.` },
    ...armsSection(arms, rendered),
    ...errorClassBlocks(docs.errorClasses),
    ...classes.rendered.map((chart): Block => ({ kind: 'chart', chart })),
    ...(docs.lines ? [{ kind: 'lines', doc: docs.lines } as Block] : []),
    ...exampleSectionBlocks(docs.lines),
  ];
  writeFileAtomic(path.join(dir, 'report.md'), toMarkdown(blocks));
  writeFileAtomic(path.join(dir, 'report.html'), toHtml(blocks, title));
  files.push('report.md', 'report.html', ...writeLinesSideFiles(dir, docs.lines));
  return { files, charts: rendered.map((c) => c.name), skipped: [] };
}

/** The Arms charts (none, and none left from an earlier run, without an arms analysis). */
async function renderArmsCharts(chartDir: string, opts: RenderReportOptions, files: string[]): Promise<RenderedChart[]> {
  const charts = opts.arms ? buildArmsCharts(opts.arms) : [];
  removeCharts(chartDir, ARMS_CHART_NAMES.filter((n) => !charts.some((c) => c.name === n)));
  const out = await renderCharts(chartDir, charts, opts.png !== false);
  files.push(...out.files);
  return out.rendered;
}

/** Compile, render and write each chart as charts/<name>.vl.json, .svg and (optionally) .png. */
async function renderCharts(chartDir: string, charts: Array<{ name: string; title: string; spec: VegaLiteSpec }>, png: boolean) {
  const files: string[] = [];
  const rendered: RenderedChart[] = [];
  mkdirSync(chartDir, { recursive: true });
  for (const ch of charts) {
    const vg = compileToVega(ch.spec);
    const svg = await renderSvg(vg);
    writeFileAtomic(path.join(chartDir, `${ch.name}.vl.json`), JSON.stringify(ch.spec, null, 2) + '\n');
    writeFileAtomic(path.join(chartDir, `${ch.name}.svg`), svg);
    files.push(`charts/${ch.name}.vl.json`, `charts/${ch.name}.svg`);
    if (png) {
      writeFileAtomic(path.join(chartDir, `${ch.name}.png`), svgToPng(svg));
      files.push(`charts/${ch.name}.png`);
    }
    rendered.push({ ...ch, vega: vg, svg });
  }
  return { files, rendered };
}

function removeCharts(chartDir: string, names: readonly string[]): void {
  for (const name of names) {
    for (const ext of ['vl.json', 'svg', 'png']) rmSync(path.join(chartDir, `${name}.${ext}`), { force: true });
  }
}
