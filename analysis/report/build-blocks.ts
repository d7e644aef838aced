/**
 * The report as blocks, in reading order. With the design files: the answer, validity, intro, skipped inputs,
 * results, charts, lines, notes; with the arms analysis alone: its answer, its section, the error classes, lines.
 */
import path from 'node:path';
import type { ArmsAnalysis } from '../study/arms';
import { describeKinds, totalSkips } from '../../src/stages/shared/skips';
import type { ReportDocs } from '../charts/specs';
import type { loadLineDocs } from './load-docs';
import { dash, type Block, type RenderedChart } from './blocks';
import { documentAnswerBlocks } from './sections/answer';
import { errorChangeBlocks } from './sections/error-changes';
import { errorClassBlocks, exampleSectionBlocks } from './sections/lines';
import { profileBlocks } from './sections/profiles';
import { bandBlocks, leakageBlocks, lineEffectBlocks, mainResultBlocks, normalisedBlocks, retrievalBlocks } from './sections/results';

/** The arms analysis's answer (sentences and forest plot) and the rest of its Arms section. */
export interface StudyBlocks {
  answer: Block[];
  section: Block[];
}

/**
 * `study`: the Arms section's answer (sentences and forest plot) and its other blocks, when the report has a study of
 * arms; its tables then carry the per-dataset figures and the design document's main table (the same comparison
 * as rag vs zero_shot) is left out.
 */
export function buildBlocks(
  d: ReportDocs,
  charts: RenderedChart[],
  skipped: string[],
  title: string,
  study: StudyBlocks | null = null,
): Block[] {
  return [
    { kind: 'h1', text: title },
    ...(study ? study.answer : documentAnswerBlocks(d)),
    ...validityBlocks(d),
    ...introBlocks(d),
    ...skippedInputBlocks(d),
    ...(study ? study.section : mainResultBlocks(d)),
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

/** A report of the arms analysis alone (no design files in the folder): `charts` are the error-class chart, when drawn. */
export function armsOnlyBlocks(
  title: string,
  arms: ArmsAnalysis,
  study: StudyBlocks,
  docs: ReturnType<typeof loadLineDocs>,
  charts: RenderedChart[],
): Block[] {
  return [
    { kind: 'h1', text: title },
    ...study.answer,
    { kind: 'p', text: `Inputs as of ${arms.generated_at}; datasets: ${arms.datasets.join(', ')}.` },
    ...study.section,
    ...errorClassBlocks(docs.errorClasses),
    ...charts.map((chart): Block => ({ kind: 'chart', chart })),
    ...(docs.lines ? [{ kind: 'lines', doc: docs.lines } as Block] : []),
    ...exampleSectionBlocks(docs.lines),
  ];
}

function introBlocks(d: ReportDocs): Block[] {
  const meta = d.metrics.meta ?? {};
  return [
    {
      kind: 'p',
      text:
        `Inputs as of ${meta.generated_at}. Model: ${meta.model ?? dash}; prompt ${meta.prompt_version ?? dash}; embedding model: ${meta.embedding_model ?? dash}; ` +
        `top-k ${meta.top_k ?? dash}; corpus ${meta.corpus_size ?? dash} sentences; ${meta.num_samples} OCR lines in ${d.datasets.length} dataset(s).`,
    },
    {
      kind: 'p',
      text: 'rag (RAG over OpenITI) is compared only with zero_shot (zero-shot, the same model). Key metric: ΔCER = rag CER − zero_shot CER; negative = improvement. Raw OCR is shown for reference.',
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
    {
      kind: 'p',
      text: 'Input lines or files the export left out (counted by kind, with the first examples); every other line was scored.',
    },
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
    {
      kind: 'p',
      text: '**Not valid — no headline ΔCER.** Too many lines failed in at least one arm; the figures below score those lines as the raw OCR and measure the failures, not the method.',
    },
    { kind: 'list', items: invalid },
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
        'Comparisons use the samples present in both arms; metrics.json uses every rag line.',
        `Confidence intervals: ${boot?.method ?? 'bootstrap'}; ${boot?.iterations ?? dash} resamples, seed ${boot?.seed ?? dash}; the all-datasets interval resamples within each dataset.`,
      ],
    },
  ];
}
