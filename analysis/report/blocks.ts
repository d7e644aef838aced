/**
 * The report's tiny document model (rendered to both Markdown and HTML by analysis/report/report.ts) and the number
 * formats its sections share, so a section built elsewhere (analysis/report/sections/arms.ts) looks the same.
 */
import type { VegaLiteSpec } from '../charts/specs';
import type { VegaSpec } from '../charts/render';

export type Block =
  | { kind: 'h1' | 'h2' | 'h3' | 'p'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; head: string[]; rows: string[][]; align?: Array<'l' | 'r'> }
  | { kind: 'chart'; chart: RenderedChart }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  | { kind: 'lines'; doc: Record<string, any> };

/** A Vega-Lite chart with its file name (charts/<name>.*), compiled and rendered. */
export interface RenderedChart {
  name: string;
  title: string;
  spec: VegaLiteSpec;
  vega: VegaSpec;
  svg: string;
}

/** A table whose first `labels` columns are labels (left) and the rest figures (right). */
export function labelledTable(head: string[], rows: string[][], labels = 1): Block {
  return { kind: 'table', head, rows, align: head.map((_, i) => (i < labels ? 'l' : 'r')) };
}

export const dash = '—';
export const pctF = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? dash : `${(x * 100).toFixed(d)}%`);
export const ppF = (x: number | null | undefined, d = 2) =>
  x === null || x === undefined ? dash : `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x * 100).toFixed(d)} pp`;
export const ciF = (ci: [number, number] | null | undefined) => (ci ? `[${ppF(ci[0]).replace(' pp', '')}, ${ppF(ci[1])}]` : dash);
/** A ΔCER interval, or why there is none (too few clusters: analysis/stats/min-clusters.ts). */
export const ciOr = (ci: [number, number] | null | undefined, reason: string | null | undefined) =>
  ci ? ciF(ci) : reason?.startsWith('too few') ? `(${reason})` : dash;
/** The detectable |ΔCER|, or why there is none (too few clusters, or the arms agree on every line). */
export const mdeOr = (mde: number | null | undefined, reason: string | null | undefined) =>
  mde === null || mde === undefined ? (reason ?? dash) : `≥ ${(mde * 100).toFixed(2)} pp`;
/** A paragraph saying which figures are too small for intervals (docs/statistics.md), or nothing. */
export function fewClustersBlocks(note: string | null): Block[] {
  return note ? [{ kind: 'p', text: note }] : [];
}
