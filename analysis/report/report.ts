/**
 * The one report renderer: report.md and report.html (opens from disk, no network; the Lines view reads its lines
 * from report-lines/ beside it), charts/ and the paper files, from the analysis outputs already on disk, so
 * `phase5 report` regenerates it in seconds without re-scoring. What it holds follows what is there: the arms
 * analysis (`opts.arms`) leads with its answer; the design files (metrics.json, comparison.json …) add their
 * sections when the folder has them (analysis/report/build-blocks.ts).
 *
 * Charts: Vega-Lite specs (analysis/charts) filled with data → <outDir>/charts/<name>.vl.json, .svg
 * (vega View.toSVG) and .png (resvg). report.md links the PNGs; report.html inlines the Vega runtime
 * (node_modules/vega/build/vega.min.js) and the compiled Vega specs and renders them as SVG in the browser,
 * with the server-rendered SVG as a <noscript> fallback.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../src/io/jsonl';
import type { ArmsAnalysis } from '../study/arms';
import { armsSection } from './sections/arms';
import { buildCharts, CHART_NAMES, errorClassChart, type ReportDocs } from '../charts/specs';
import type { Block, RenderedChart } from './blocks';
import { armsAnswerBlocks } from './sections/answer';
import { writeLinesSideFiles } from '../explorer/side-files';
import { armsOnlyBlocks, buildBlocks, type StudyBlocks } from './build-blocks';
import { removeCharts, renderArmsCharts, renderCharts } from './chart-files';
import { loadLineDocs, loadReportDocs } from './load-docs';
import { toHtml, vegaMinJsPath } from './html';
import { memorisationBlocks } from './sections/memorisation';
import { toMarkdown } from './markdown';
import { writePaperOutputs } from './paper/paper';
import type { RenderReportOptions } from '../types';

export { loadReportDocs, vegaMinJsPath };

export interface RenderedReport {
  /** Files written, relative to the report's folder. */
  files: string[];
  charts: string[];
  /** Charts not drawn (no data). */
  skipped: string[];
}

/**
 * Write report.md, report.html, charts/*, the paper files and report-lines/ to `outDir` (default `dir`) from the
 * outputs in `dir`: the design files when `dir` has them, the arms analysis when given (its answer first). Fails
 * with the fix when there is neither.
 */
export async function renderReport(dir: string, opts: RenderReportOptions = {}, outDir: string = dir): Promise<RenderedReport> {
  const docs = opts.arms && !existsSync(path.join(dir, 'metrics.json')) ? null : loadReportDocs(dir);
  const lineDocs = docs ? { lines: docs.lines ?? null, errorClasses: docs.errorClasses ?? null } : loadLineDocs(dir);
  const title = opts.title ?? (docs ? 'Report: RAG (OpenITI) vs zero-shot' : 'Study arms report');
  const png = opts.png !== false;
  const chartDir = path.join(outDir, 'charts');
  const files: string[] = [];
  const armsCharts = await renderArmsCharts(chartDir, opts, files);
  const { charts, skipped } = docs ? buildCharts(docs) : errorClassCharts(lineDocs.errorClasses);
  // Charts without data this time must not linger from an earlier run.
  removeCharts(
    chartDir,
    CHART_NAMES.filter((n) => !charts.some((c) => c.name === n)),
  );
  const out = await renderCharts(chartDir, charts, png);
  files.push(...out.files);
  files.push(...writePaperOutputs(outDir, { arms: opts.arms ?? null, docs, charts: [...armsCharts, ...out.rendered], png }));
  const study = opts.arms ? studyBlocks(opts.arms, armsCharts) : null;
  const blocks = docs
    ? buildBlocks(docs, out.rendered, skipped, title, study)
    : armsOnlyBlocks(title, opts.arms!, study!, lineDocs, out.rendered);
  // The memorisation probe's section (its warning when a book scores above its control) after the answer, before the first section.
  blocks.splice(firstSectionAfterAnswer(blocks), 0, ...memorisationBlocks(outDir));
  writeFileAtomic(path.join(outDir, 'report.md'), toMarkdown(blocks));
  writeFileAtomic(path.join(outDir, 'report.html'), toHtml(blocks, title));
  files.push('report.md', 'report.html', ...writeLinesSideFiles(outDir, lineDocs.lines ?? null));
  return { files, charts: [...armsCharts, ...out.rendered].map((c) => c.name), skipped };
}

/** Without the design files, the one chart of the Lines view's error classes (when it has data). */
function errorClassCharts(errorClasses: ReportDocs['errorClasses']): ReturnType<typeof buildCharts> {
  const chart = errorClassChart(errorClasses);
  return chart ? { charts: [chart], skipped: [] } : { charts: [], skipped: ['error_classes'] };
}

/** Where the first section after the answer starts (its h2), or the end. */
function firstSectionAfterAnswer(blocks: readonly Block[]): number {
  const answer = blocks.findIndex((b) => b.kind === 'h2' && b.id === 'answer');
  const i = blocks.findIndex((b, k) => k > answer && b.kind === 'h2');
  return i < 0 ? blocks.length : i;
}

/** The answer (a sentence per planned contrast, the forest plot) and the rest of the Arms section, its other charts last. */
function studyBlocks(a: ArmsAnalysis, charts: RenderedChart[]): StudyBlocks {
  const forest = charts.find((c) => c.name === 'arms_forest') ?? null;
  return {
    answer: armsAnswerBlocks(a, forest),
    section: armsSection(
      a,
      charts.filter((c) => c !== forest),
    ),
  };
}
