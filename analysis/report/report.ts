/**
 * report.md and report.html (opens from disk, no network; the Lines view reads its lines from report-lines/
 * beside it) from the analysis documents already on disk, so `phase5 report` can regenerate it in seconds
 * without re-scoring.
 *
 * Charts: Vega-Lite specs (analysis/charts) filled with data → <ragDir>/charts/<name>.vl.json, .svg
 * (vega View.toSVG) and .png (resvg). report.md links the PNGs; report.html inlines the Vega runtime
 * (node_modules/vega/build/vega.min.js) and the compiled Vega specs and renders them as SVG in the browser,
 * with the server-rendered SVG as a <noscript> fallback.
 */
import path from 'node:path';
import { writeFileAtomic } from '../../src/io/jsonl';
import type { ArmsAnalysis } from '../study/arms';
import { armsSection } from './sections/arms';
import { buildCharts, CHART_NAMES, errorClassChart } from '../charts/specs';
import type { Block, RenderedChart } from './blocks';
import { armsAnswerBlocks } from './sections/answer';
import { writeLinesSideFiles } from '../explorer/side-files';
import { buildBlocks } from './build-blocks';
import { removeCharts, renderArmsCharts, renderCharts } from './chart-files';
import { loadLineDocs, loadReportDocs } from './load-docs';
import { toHtml, vegaMinJsPath } from './html';
import { errorClassBlocks, exampleSectionBlocks } from './sections/lines';
import { memorisationBlocks } from './sections/memorisation';
import { toMarkdown } from './markdown';
import { writePaperOutputs } from './paper/paper';
import type { RenderReportOptions } from '../types';

export { loadReportDocs, vegaMinJsPath };

export interface RenderedReport {
  /** Files written, relative to the report's folder. */
  files: string[];
  charts: string[];
  skipped: string[];
}

/**
 * Write report.md, report.html, charts/* and report-lines/ to `outDir` (default: beside the documents) from the
 * analysis documents in `ragDir`; the Arms section, when given, leads (its planned contrasts first), then the
 * Phase 5 vs Phase 2 figures.
 */
export async function renderReport(ragDir: string, opts: RenderReportOptions = {}, outDir: string = ragDir): Promise<RenderedReport> {
  const docs = loadReportDocs(ragDir);
  const title = opts.title ?? 'Phase 5 report: RAG (OpenITI) vs Phase 2 zero-shot';
  const { charts, skipped } = buildCharts(docs);
  const chartDir = path.join(outDir, 'charts');
  const out = await renderCharts(chartDir, charts, opts.png !== false);
  // Charts without data this time must not linger from an earlier run.
  removeCharts(
    chartDir,
    CHART_NAMES.filter((n) => skipped.includes(n)),
  );
  const arms = await renderArmsCharts(chartDir, opts, out.files);
  const study = opts.arms ? studyBlocks(opts.arms, arms) : null;
  const blocks = buildBlocks(docs, out.rendered, skipped, title, study);
  out.files.push(
    ...writePaperOutputs(outDir, { arms: opts.arms ?? null, docs, charts: [...arms, ...out.rendered], png: opts.png !== false }),
  );
  // The memorisation probe's warning, when a book scores above its control, before the first section.
  blocks.splice(firstSection(blocks), 0, ...memorisationBlocks(outDir));
  writeFileAtomic(path.join(outDir, 'report.md'), toMarkdown(blocks));
  writeFileAtomic(path.join(outDir, 'report.html'), toHtml(blocks, title));
  out.files.push('report.md', 'report.html', ...writeLinesSideFiles(outDir, docs.lines ?? null));
  return { files: out.files, charts: [...out.rendered, ...arms].map((c) => c.name), skipped };
}

/** Where the first section starts (its h2), or the end. */
function firstSection(blocks: readonly Block[]): number {
  const i = blocks.findIndex((b) => b.kind === 'h2');
  return i < 0 ? blocks.length : i;
}

/** The answer (a sentence per planned contrast, the forest plot) and the rest of the Arms section, its other charts last. */
function studyBlocks(a: ArmsAnalysis, charts: RenderedChart[]): { answer: Block[]; section: Block[] } {
  const forest = charts.find((c) => c.name === 'arms_forest') ?? null;
  return {
    answer: armsAnswerBlocks(a, forest),
    section: armsSection(
      a,
      charts.filter((c) => c !== forest),
    ),
  };
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
  files.push(...writePaperOutputs(dir, { arms, docs: null, charts: [...rendered, ...classes.rendered], png: opts.png !== false }));
  const study = studyBlocks(arms, rendered);
  const blocks: Block[] = [
    { kind: 'h1', text: title },
    ...study.answer,
    { kind: 'p', text: `Inputs as of ${arms.generated_at}; datasets: ${arms.datasets.join(', ')}.` },
    ...memorisationBlocks(dir),
    ...study.section,
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
