/**
 * The report's tiny document model (rendered to both Markdown and HTML by analysis/report/report.ts) and the number
 * formats its sections share, so a section built elsewhere (analysis/report/sections/arms.ts) looks the same.
 */
import type { VegaLiteSpec } from '../charts/specs';
import type { VegaSpec } from '../charts/render';

/** `only`: a block rendered in one of the two reports (report.md carries the summary and tables, not every line). */
export type Block = (
  | { kind: 'h1' | 'h2' | 'h3' | 'p'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; head: string[]; rows: string[][]; align?: Array<'l' | 'r'> }
  | { kind: 'chart'; chart: RenderedChart }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  | { kind: 'lines'; doc: Record<string, any> }
) & { only?: 'md' | 'html'; id?: string };

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
/** A ΔCER interval, or "—" when there is none (the table's note says why: `emptyCellNote`). */
export const ciOr = (ci: [number, number] | null | undefined) => (ci ? ciF(ci) : dash);
/** The detectable |ΔCER|, or "—" when there is none (too few clusters, or the arms agree on every line: the table's note). */
export const mdeOr = (mde: number | null | undefined) => (mde === null || mde === undefined ? dash : `≥ ${(mde * 100).toFixed(2)} pp`);
/** A paragraph saying which figures are too small for intervals (docs/statistics.md), or nothing. */
export function fewClustersBlocks(note: string | null): Block[] {
  return note ? [{ kind: 'p', text: note }] : [];
}

/**
 * The one note under a table whose cells say "—" for a missing interval, p or detectable effect: each distinct reason
 * once (the "too few clusters" ones as one range, analysis/stats/min-clusters.ts). Nothing when no reason is given.
 */
export function emptyCellNote(reasons: Iterable<string | null | undefined>): Block[] {
  const all = [...reasons].filter((r): r is string => typeof r === 'string' && r.length > 0);
  if (all.length === 0) return [];
  const few = all.flatMap((r) => {
    const m = /^too few clusters: (\d+) \(at least (\d+)\)/.exec(r);
    return m ? [[Number(m[1]), Number(m[2])]] : [];
  });
  const parts: string[] = [];
  if (few.length) {
    const lo = Math.min(...few.map((f) => f[0]));
    const hi = Math.max(...few.map((f) => f[0]));
    parts.push(`too few clusters of lines (${lo === hi ? lo : `${lo}–${hi}`}; at least ${few[0][1]}, docs/statistics.md)`);
  }
  parts.push(...new Set(all.filter((r) => !r.startsWith('too few clusters'))));
  return [{ kind: 'p', text: `— = no interval, p-value or detectable effect: ${parts.join('; ')}.` }];
}
