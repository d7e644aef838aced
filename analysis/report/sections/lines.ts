/**
 * The report's line-level parts, from lines.json and error_classes.json: per arm the largest improvements
 * and regressions with OCR / gold / output and the retrieved context (report.md and report.html), and the
 * table of errors by class. The interactive Lines view itself is analysis/explorer.
 */
import { errorClassLabel, type ErrorClass } from '../../../src/text/arabic';
import { diffSides, type DiffSegment } from '../../lines/diff';
import type { ArmLine, ExplorerLine, RetrievedSentence } from '../../lines/explorer-lines';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The blocks report.ts renders (the subset used here); `only`: one of the two reports (analysis/report/blocks.ts). */
export type LineBlock = (
  | { kind: 'h2' | 'h3' | 'p'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; head: string[]; rows: string[][]; align?: Array<'l' | 'r'> }
) & { only?: 'md' | 'html' };

const EXAMPLES = 10;
const CONTEXT_CHARS = 80;
const RAW_CHARS = 160;
const dash = '—';
const pct = (x: number | null) => (x === null ? dash : `${(x * 100).toFixed(2)}%`);
const pp = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x * 100).toFixed(2)} pp`;

/** One line's change for an arm: its CER against the reference CER (the baseline arm's, or OCR's for the baseline). */
interface Example {
  line: ExplorerLine;
  arm: ArmLine;
  refCer: number;
  delta: number;
}

/** The lines of `arm` with a defined ΔCER against `ref` (baseline arm name, or null = OCR). */
export function armDeltas(lines: readonly ExplorerLine[], arm: string, ref: string | null): Example[] {
  const out: Example[] = [];
  for (const line of lines) {
    const a = line.arms[arm];
    const refCer = ref === null ? line.ocr.cer : (line.arms[ref]?.cer ?? null);
    if (!a || a.cer === null || refCer === null) continue;
    out.push({ line, arm: a, refCer, delta: a.cer - refCer });
  }
  return out;
}

/** The `n` largest improvements (most negative Δ) or regressions (most positive), ties in line order. */
export function largestChanges(ex: readonly Example[], kind: 'improvements' | 'regressions', n = EXAMPLES): Example[] {
  const sign = kind === 'improvements' ? -1 : 1;
  return ex
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => sign * e.delta > 0)
    .sort((a, b) => sign * (b.e.delta - a.e.delta) || a.i - b.i)
    .slice(0, n)
    .map(({ e }) => e);
}

const oneLine = (s: string) => s.replace(/\s+/gu, ' ').trim();
const cut = (s: string, n: number) => {
  const cps = [...oneLine(s)];
  return cps.length <= n ? cps.join('') : `${cps.slice(0, n).join('')}…`;
};

function contextItem(r: readonly RetrievedSentence[] | null): string {
  if (!r || r.length === 0) return 'Retrieved: none';
  const hits = r.map(
    (h) =>
      `[${h.score === null ? dash : h.score.toFixed(3)}${h.from_source ? ', own source book' : ''}] ${h.source_uri ?? dash}: ${h.text === null ? dash : cut(h.text, CONTEXT_CHARS)}`,
  );
  return `Retrieved: ${hits.join(' · ')}`;
}

/** A guarded arm's decision, with the untouched model output when trimming or the guard changed it. */
const guardItem = (a: ArmLine) => `Guard: ${a.guard}${a.raw !== null ? `; raw model output: ${cut(a.raw, RAW_CHARS)}` : ''}`;

function exampleBlocks(e: Example, k: number, armName: string, refName: string): LineBlock[] {
  const text = (d: DiffSegment[]) => diffSides(d);
  const ocr = text(e.line.ocr.diff);
  return [
    {
      kind: 'p',
      text: `**${k}. ${e.line.dataset} / ${e.line.sample_id}** — ΔCER ${pp(e.delta)} (${armName} ${pct(e.arm.cer)} vs ${refName} ${pct(e.refCer)})`,
    },
    {
      kind: 'list',
      items: [
        `OCR: ${oneLine(ocr.output)}`,
        `Gold: ${oneLine(ocr.gold)}`,
        `Output: ${oneLine(text(e.arm.diff).output)}${e.arm.failed ? ` (failed: ${e.arm.failed}; scored as the OCR text)` : ''}`,
        ...(e.arm.guard ? [guardItem(e.arm)] : []),
        ...(e.arm.retrieval ? [contextItem(e.arm.retrieval)] : []),
      ],
    },
  ];
}

/**
 * Per arm: the 10 largest improvements and regressions against the baseline (the baseline: against OCR) — in
 * report.html with their texts and retrieved sentences, in report.md as one table of the lines alone (the texts are in
 * the Lines view and the tidy files).
 */
export function exampleSectionBlocks(lines: Json | null | undefined): LineBlock[] {
  if (!lines) return [];
  const baseline: string = lines.meta.baseline;
  const html: LineBlock[] = [];
  const rows: string[][] = [];
  for (const { name, upper_bound } of lines.meta.arms as Array<{ name: string; upper_bound?: boolean }>) {
    const ref = name === baseline ? null : baseline;
    const deltas = armDeltas(lines.lines, name, ref);
    for (const kind of ['improvements', 'regressions'] as const) {
      const ex = largestChanges(deltas, kind);
      const title = `${name}${upper_bound ? ' † (upper bound)' : ''}: ${ex.length} largest ${kind} (vs ${ref ?? 'OCR'})`;
      html.push({ kind: 'h3', text: title, only: 'html' });
      if (ex.length === 0) html.push({ kind: 'p', text: `No line ${kind === 'improvements' ? 'improved' : 'got worse'}.`, only: 'html' });
      ex.forEach((e, i) => html.push(...exampleBlocks(e, i + 1, name, ref ?? 'OCR').map((b): LineBlock => ({ ...b, only: 'html' }))));
      ex.forEach((e, i) =>
        rows.push([
          name,
          `${kind.slice(0, -1)} ${i + 1}`,
          `${e.line.dataset} / ${e.line.sample_id}`,
          pp(e.delta),
          pct(e.arm.cer),
          `${ref ?? 'OCR'} ${pct(e.refCer)}`,
        ]),
      );
    }
  }
  return [
    { kind: 'h2', text: 'Examples: largest changes per arm' },
    {
      kind: 'p',
      text: `ΔCER of a line = the arm's line CER − the ${baseline} line CER (for ${baseline} itself: − the OCR line CER); negative = better. Texts in scoring form; retrieved sentences cut to ${CONTEXT_CHARS} characters. Every line is in the Lines view of report.html.`,
      only: 'html',
    },
    {
      kind: 'p',
      text: `Per arm the ${EXAMPLES} lines it improved most and the ${EXAMPLES} it made worst; ΔCER of a line = the arm's line CER − the ${baseline} line CER (for ${baseline} itself: − the OCR line CER). Their texts are in report.html (the examples and the Lines view, report.html#line=<sample_id>) and in the tidy table (study/lines.parquet).`,
      only: 'md',
    },
    { kind: 'table', head: ['Arm', 'Change', 'Line', 'ΔCER', 'Line CER', 'vs'], rows, align: ['l', 'l', 'l', 'r', 'r', 'r'], only: 'md' },
    ...html,
  ];
}

/** Errors by class: OCR and each arm against gold, with what each arm fixed and introduced. */
export function errorClassBlocks(ec: Json | null | undefined): LineBlock[] {
  if (!ec) return [];
  const arms = Object.keys(ec.errors).filter((s) => s !== 'ocr');
  const cell = (x: number | undefined) => (x === undefined ? dash : String(x));
  return [
    { kind: 'h2', text: 'Errors by class (character alignment, all datasets)' },
    {
      kind: 'p',
      text: 'Character errors against gold by class — substitutions between letters that differ only in dots (one row per letter group), diacritics, hamza/alef forms, whitespace, other — for the raw OCR and each arm, with the OCR errors each arm fixed and the errors it introduced.',
    },
    {
      kind: 'table',
      head: ['Class', 'OCR errors', ...arms.flatMap((a) => [`${a} errors`, `${a} fixed`, `${a} introduced`])],
      rows: (ec.classes as ErrorClass[]).map((c) => [
        errorClassLabel(c),
        cell(ec.errors.ocr[c]),
        ...arms.flatMap((a) => [cell(ec.errors[a][c]), cell(ec.fixed[a]?.[c]), cell(ec.introduced[a]?.[c])]),
      ]),
      align: ['l', 'r', ...arms.flatMap(() => ['r', 'r', 'r'] as const)],
    },
  ];
}
