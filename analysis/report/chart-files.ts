/** Report charts on disk: compiled and written as charts/<name>.vl.json, .svg and .png; stale ones removed. */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../src/io/jsonl';
import { ARMS_CHART_NAMES, buildArmsCharts } from './sections/arms';
import type { VegaLiteSpec } from '../charts/specs';
import type { RenderedChart } from './blocks';
import { compileToVega, renderSvg, svgToPng } from '../charts/render';
import type { RenderReportOptions } from '../types';

/** The Arms charts (none, and none left from an earlier run, without an arms analysis). */
export async function renderArmsCharts(chartDir: string, opts: RenderReportOptions, files: string[]): Promise<RenderedChart[]> {
  const charts = opts.arms ? buildArmsCharts(opts.arms) : [];
  removeCharts(
    chartDir,
    ARMS_CHART_NAMES.filter((n) => !charts.some((c) => c.name === n)),
  );
  const out = await renderCharts(chartDir, charts, opts.png !== false);
  files.push(...out.files);
  return out.rendered;
}

/** Compile, render and write each chart as charts/<name>.vl.json, .svg and (optionally) .png. */
export async function renderCharts(chartDir: string, charts: Array<{ name: string; title: string; spec: VegaLiteSpec }>, png: boolean) {
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

export function removeCharts(chartDir: string, names: readonly string[]): void {
  for (const name of names) {
    for (const ext of ['vl.json', 'svg', 'png']) rmSync(path.join(chartDir, `${name}.${ext}`), { force: true });
  }
}
