/**
 * A stage's result for a person: a few lines with counts and output paths (`--json` prints the document).
 */
import type { ArmResult, ImportResult } from '../../src/stages/infer/infer';
import { loadSuffix } from './llm-load';
import { asBatchResult, batchLines } from './batch-summary';
import type { ArmsSummary } from '../../analysis/stage/result';
import type { AnalyzeResult, BuildResult, InferResult, Phase5Result } from '../../workflows/types';
import type { ExportResult } from '../../workflows/types';

const n = (x: number) => x.toLocaleString('en-US');
const f4 = (x: number | null) => (x === null ? '-' : x.toFixed(4));
const percent = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)} %`);

function buildLines(r: BuildResult): string[] {
  const c = r.corpus;
  const skipped = Object.values(c.filesSkipped ?? {}).reduce((a, b) => a + b, 0);
  return [
    `corpus: ${n(c.sentences)} sentences from ${n(c.filesParsed)} files${c.reused ? ' (reused: up to date)' : ''}${skipped ? `, ${n(skipped)} files skipped` : ''} → ${c.corpusPath}`,
    `index:  ${n(r.index.vectors)} vectors × ${r.index.dims} (${r.index.indexType}, ${r.index.model}) → ${r.index.indexPath}`,
  ];
}

function exportLines(r: ExportResult): string[] {
  const per = Object.entries(r.merged.byDataset)
    .map(([d, k]) => `${d} ${n(k)}`)
    .join(', ');
  const exports = r.merged.exports;
  if (exports?.length) {
    // Study arms: one export per distinct retrieval; totals are per export, shards and fallbacks over all of them.
    return [
      `export: ${n(exports.length)} exports of ${n(r.merged.records)} records each (${per}); ${n(r.shards)} shards, ${n(r.fallbacks)} lines without retrieval in all`,
      ...exports.map(
        (e) =>
          `        ${e.mode} k=${e.top_k}${e.upper_bound ? ' †' : ''} (arms ${e.arms.join(', ')}): verbatim gold in context ${n(e.verbatim_gold.hits)}/${n(e.verbatim_gold.lines)} lines → ${e.path}`,
      ),
    ];
  }
  return [
    `export: ${n(r.merged.records)} records in ${n(r.shards)} shards (${per}); ${n(r.fallbacks)} without retrieval (zero-shot fallback)`,
    `        → ${r.merged.path}`,
    ...(r.merged.links?.length ? [`          (${r.merged.links.join(', ')}: links to the latest finished export)`] : []),
  ];
}

function inferLines(r: InferResult): string[] {
  const batch = asBatchResult(r);
  if (batch) return batchLines(batch);
  const imported = 'imported' in r ? (r.imported as ImportResult | undefined) : undefined;
  if (imported && 'imported' in imported) {
    const guard = imported.guard
      ? Object.entries(imported.guard)
          .map(([k, c]) => `${n(c)} ${k}`)
          .join(', ')
      : '';
    return [
      `infer: imported ${n(imported.imported)} corrections (${n(imported.failed)} failed) → ${imported.output}`,
      ...(guard ? [`  guard on the imported lines: ${guard}`] : []),
      ...(imported.notes ?? []).map((note) => `  ${note}`),
    ];
  }
  return Object.values(r).map((c) => {
    const cond = c as ArmResult;
    const rate = cond.load && cond.elapsedMs > 0 ? cond.written / (cond.elapsedMs / 1000) : null;
    return `infer ${runLabel(cond)}: ${n(cond.written)} written, ${n(cond.skippedExisting)} already done, ${n(cond.failed)} failed (${cond.model})${loadSuffix(cond.load, rate)}${tokenSuffix(cond)} → ${cond.output}`;
  });
}

/** The arm's name, and for one replicate of several `<arm>#<r> (seed S)` (docs/outputs.md#replicates). */
function runLabel(c: ArmResult): string {
  return c.replicate === undefined ? c.arm : `${c.arm}#${c.replicate} (seed ${c.seed ?? '-'})`;
}

/** ` · 2,400 + 600 tokens` (prompt + completion, as the server reported them), with the cost when `infer.price` is set. */
function tokenSuffix(c: ArmResult): string {
  if (!c.promptTokens && !c.completionTokens) return '';
  const cost = c.price ? ` · cost ${money((c.promptTokens * c.price.input + c.completionTokens * c.price.output) / 1e6)}` : '';
  return ` · ${n(c.promptTokens)} + ${n(c.completionTokens)} tokens${cost}`;
}

const money = (x: number | null) => (x === null ? '-' : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(2));
const ms = (x: number | null) => (x === null ? '-' : x >= 1000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);

function analyzeLines(r: AnalyzeResult): string[] {
  const out = r.datasets.map((d) => {
    const delta = d.invalid_reason ? `ΔCER not valid: ${d.invalid_reason}` : `ΔCER ${f4(d.delta_cer)}`;
    return `  ${d.dataset}: n=${n(d.n)}  OCR CER ${f4(d.ocr_cer)}  zero-shot ${f4(d.zero_shot_cer)}  RAG ${f4(d.rag_cer)}  ${delta}`;
  });
  const arms = r.arms ? armsTableLines(r.arms).map((l) => `  ${l}`) : [];
  return [
    `analyze: ${n(r.files)} files in ${r.ragDir}`,
    ...out,
    ...arms,
    ...r.warnings.map((w) => `  warning: ${w}`),
    `report: ${r.report}`,
  ];
}

const ci4 = (ci: [number, number] | null) => (ci ? `[${f4(ci[0])}, ${f4(ci[1])}]` : '');
const pValue = (p: number | null) => (p === null ? '-' : p < 0.001 ? p.toExponential(1) : p.toFixed(3));

/** Rows as columns padded to their widest cell (text columns left, numbers right). */
function alignColumns(rows: string[][], leftAligned: ReadonlySet<number>): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => [...r[c]].length)));
  const pad = (cell: string, c: number) =>
    leftAligned.has(c)
      ? cell.padEnd(widths[c] + cell.length - [...cell].length)
      : cell.padStart(widths[c] + cell.length - [...cell].length);
  return rows.map((r) => r.map(pad).join('  ').trimEnd());
}

/**
 * The study arms pooled over datasets (AnalyzeResult.arms, from study/arms.json): CER with its bootstrap CI, raw
 * CER (before trim + guard), ΔCER vs the baseline with its paired-bootstrap CI, Holm-adjusted p, and the share of
 * lines the guard sent back to the OCR text. Upper-bound arms (oracle retrieval) carry a `†`, as in the report.
 */
export function armsTableLines(a: ArmsSummary): string[] {
  const header = ['arm', 'lines', 'CER', '[95 % CI]', 'raw CER', 'ΔCER vs base', '[95 % CI]', 'p_holm', 'guard fallback'];
  const rows = a.arms.map((r) => {
    const base = r.name === a.baseline;
    return [
      `${r.name}${r.upper_bound ? ' †' : ''}`,
      n(r.lines),
      f4(r.cer),
      ci4(r.cer_ci),
      f4(r.raw_cer),
      base ? '(baseline)' : f4(r.delta_cer),
      base ? '' : ci4(r.ci),
      base ? '' : pValue(r.p_holm),
      percent(r.guard_fell_back),
    ];
  });
  const notes = [
    ...(a.arms.some((r) => r.upper_bound) ? ['† upper bound: retrieval with the gold line as the query'] : []),
    ...(a.skipped ? [`${n(a.skipped)} arm folder(s) skipped (see arms.json "skipped")`] : []),
  ];
  return [
    `study arms (baseline ${a.baseline}; CIs: paired block bootstrap over clusters of lines; p: block permutation test, Holm over the planned contrasts) → ${a.file}`,
    ...alignColumns([header, ...rows], new Set([0])),
    ...notes,
    ...usageTableLines(a),
  ];
}

/**
 * Per arm, over every replicate: records, prompt and completion tokens, answer latency (median, p95) and the cost
 * when `infer.price` is set; with replicates, their number and the between-replicate SD of the CER.
 */
function usageTableLines(a: ArmsSummary): string[] {
  const rows = a.arms.filter((r) => r.usage);
  if (rows.length === 0) return [];
  const withReplicates = rows.some((r) => r.replicates > 1);
  const header = [
    'arm',
    ...(withReplicates ? ['replicates', 'CER SD'] : []),
    'records',
    'prompt tokens',
    'completion tokens',
    'latency p50',
    'p95',
    'cost',
  ];
  const body = rows.map((r) => [
    r.name,
    ...(withReplicates ? [String(r.replicates), f4(r.cer_sd)] : []),
    n(r.usage.records),
    n(r.usage.prompt_tokens),
    n(r.usage.completion_tokens),
    ms(r.usage.latency_ms.median),
    ms(r.usage.latency_ms.p95),
    money(r.usage.cost),
  ]);
  const title = withReplicates
    ? 'tokens, latency and cost per arm (all replicates; CER above = the replicate mean, CI over clusters and replicates):'
    : 'tokens, latency and cost per arm:';
  return [title, ...alignColumns([header, ...body], new Set([0]))];
}

/** The summary lines of a stage command's (or the study's) result. */
export function summarizeResult(stage: string, result: unknown): string[] {
  if (result === null || typeof result !== 'object') return [`${stage}: ${String(result)}`];
  switch (stage) {
    case 'build':
      return buildLines(result as BuildResult);
    case 'export':
      return exportLines(result as ExportResult);
    case 'infer':
      return inferLines(result as InferResult);
    case 'analyze':
      return analyzeLines(result as AnalyzeResult);
    default: {
      const r = result as Phase5Result;
      return [
        ...(r.build ? buildLines(r.build) : []),
        ...(r.export ? exportLines(r.export) : []),
        ...(r.infer ? inferLines(r.infer) : []),
        ...(r.analyze ? analyzeLines(r.analyze) : []),
      ];
    }
  }
}
