/** The outputs of an evaluation: retrieval_eval.json, its Vega-Lite chart, the golden set, per-line ranks; the console table. */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeJsonAtomic, writeJsonlAtomic } from '../io/jsonl';
import type { EvalRun } from './eval-run';
import type { ConfigResult, EvalRetrievalSummary } from './eval-types';
import type { GoldenLine, GoldenSet } from './golden';

export const EVAL_CHART_TEMPLATE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'charts', 'retrieval_eval.vl.json');

/** The best configuration (recall@3, then MRR) and the four output files; returns the summary. */
export function writeEvalOutputs(outDir: string, golden: GoldenSet, run: EvalRun): EvalRetrievalSummary {
  const { ks, results } = run;
  const at3 = ks.includes(3) ? '@3' : `@${ks[0]}`;
  const best = results.reduce((a, b) => (b.recall[at3] > a.recall[at3] || (b.recall[at3] === a.recall[at3] && b.mrr > a.mrr) ? b : a));
  mkdirSync(outDir, { recursive: true });
  const files = {
    summary: path.join(outDir, 'retrieval_eval.json'),
    chart: path.join(outDir, 'retrieval_eval.vl.json'),
    golden: path.join(outDir, 'golden.jsonl'),
    lines: path.join(outDir, 'retrieval_eval_lines.jsonl'),
  };
  const summary: EvalRetrievalSummary = {
    created_at: new Date().toISOString(),
    golden: golden.summary,
    queries: run.queries.length,
    ks,
    models: run.modelInfo,
    results,
    best: { by: `recall${at3}`, config: best.config, model: best.model, value: best.recall[at3] },
    files,
  };
  writeJsonlAtomic(files.golden, golden.lines satisfies GoldenLine[]);
  writeJsonlAtomic(files.lines, run.perLine);
  writeJsonAtomic(files.chart, evalChart(results));
  writeJsonAtomic(files.summary, summary);
  return summary;
}

/** The Vega-Lite template filled with one row per (configuration, metric). */
export function evalChart(results: readonly ConfigResult[]): Record<string, unknown> {
  const spec = JSON.parse(readFileSync(EVAL_CHART_TEMPLATE, 'utf8')) as Record<string, unknown>;
  const rows: Record<string, unknown>[] = [];
  for (const r of results) {
    const label = `${r.model} · ${r.config}`;
    for (const [k, v] of Object.entries(r.recall)) rows.push({ config: label, metric: `recall${k}`, value: v });
    rows.push({ config: label, metric: `MRR@${r.mrr_at}`, value: r.mrr });
  }
  spec.data = { values: rows };
  return spec;
}

/** The results as a Markdown table (the bench prints it). */
export function formatEvalTable(summary: EvalRetrievalSummary): string {
  const ks = summary.ks;
  const head = ['model', 'configuration', ...ks.map((k) => `R@${k}`), `MRR@${Math.max(...ks)}`, ...ks.map((k) => `P@${k}`), 's'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  for (const r of summary.results) {
    const f = (x: number) => x.toFixed(3);
    lines.push(
      `| ${[r.model, r.config + (r.notes.length ? ' †' : ''), ...ks.map((k) => f(r.recall[`@${k}`])), f(r.mrr), ...ks.map((k) => f(r.precision[`@${k}`])), r.seconds.toFixed(1)].join(' | ')} |`,
    );
  }
  const notes = summary.results.filter((r) => r.notes.length).map((r) => `† ${r.model} · ${r.config}: ${r.notes.join('; ')}`);
  return [...lines, ...notes].join('\n');
}

/** The console report of an evaluation (golden set, models, table, best configuration, files). */
export function describeEvalSummary(summary: EvalRetrievalSummary): string {
  const g = summary.golden;
  const out = [
    `## Retrieval evaluation — ${summary.queries} evaluable OCR lines (of ${g.lines}; ${Object.entries(g.by_status)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')})`,
    `corpus: ${g.corpus.total} sentences (${g.corpus.source_units} from the two source books, ${g.corpus.distractors} distractors from the rest of the slice)`,
    ...g.books.map((b) => `  ${b.key}: ${b.evaluable}/${b.lines} evaluable, source ${b.sources.join(', ')}`),
    ...summary.models.map(
      (m) =>
        `  model ${m.name}: index ${m.embedded_seconds === null ? 'reused from cache' : `built in ${m.embedded_seconds.toFixed(0)} s`}`,
    ),
    '',
    formatEvalTable(summary),
    '',
    `best ${summary.best.by}: ${summary.best.value.toFixed(3)} — ${summary.best.model} · ${summary.best.config}`,
    `files: ${summary.files.summary}, ${summary.files.chart}`,
  ];
  return out.join('\n');
}
