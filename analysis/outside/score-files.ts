/**
 * `phase5 score`: outside systems' files evaluated as a study, without Temporal and without records of our own —
 * the references (HIPE-OCRepair JSONL, or plain paired text) and each system's outputs read (./system-file.ts:
 * HIPE-OCRepair JSONL, plain text or the project's own corrections.jsonl), made arms in memory (./outside-arms.ts) and handed to the arms analysis
 * (analysis/study/arms.ts), which writes `<results>/study/arms.json`, the tidy tables and each arm's metrics.json;
 * the arms report (analysis/report/report.ts `renderReport`) follows in `<results>/study/`.
 * A HIPE-OCRepair document is its own cluster (documents are the independent units); paired text clusters in
 * the analysis's blocks of consecutive lines.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { UserInputError } from '../../src/stages/shared/types';
import type { NormalizationConfig } from '../../src/text/profiles';
import { renderReport } from '../report/report';
import { analyzeArms, type ArmsAnalysis } from '../study/arms';
import { readHipeReferences } from './hipe-jsonl';
import { OCR_ARM, outsideArms } from './outside-arms';
import { readPairedReferences } from './paired-text';
import { readSystemFile } from './system-file';
import type { ReadNotes, ReferenceLine, SystemOutput } from './types';

export interface ScoreFilesOptions {
  resultsDir: string;
  /** HIPE-OCRepair reference files (exclusive with gold/ocr). */
  references?: string[];
  gold?: string;
  ocr?: string;
  /** One entry per `--system NAME=FILE`; a name may come back with another file (one per reference file). */
  systems: Array<{ name: string; file: string }>;
  /** Arm name → the systems that are its replicates. */
  replicates?: Record<string, string[]>;
  normalization?: NormalizationConfig;
  bootstrap?: { iterations?: number; seed?: number };
  minClusters?: number;
  /** `analysis.primary_metric`: the planned contrasts in ΔCER (default) or ΔcMER. */
  primaryMetric?: 'cer' | 'cmer';
  report?: boolean;
  /** One line per step, with what it counted. */
  onStep?: (line: string) => void;
}

export interface ScoreFilesResult {
  analysis: ArmsAnalysis;
  lines: number;
  excluded: number;
  report: string | null;
  files: string[];
}

async function readInputs(
  o: ScoreFilesOptions,
  notes: ReadNotes,
): Promise<{ refs: ReferenceLine[]; systems: SystemOutput[]; hipe: boolean }> {
  const hipe = (o.references?.length ?? 0) > 0;
  if (hipe === (o.gold !== undefined || o.ocr !== undefined))
    throw new UserInputError('give --reference FILE… (HIPE-OCRepair JSONL) or --gold FILE --ocr FILE (paired text), not both');
  if (!hipe && (o.gold === undefined || o.ocr === undefined)) throw new UserInputError('paired text needs both --gold FILE and --ocr FILE');
  if (o.systems.length === 0) throw new UserInputError('no --system NAME=FILE given');
  const refs = hipe ? await readHipeReferences(o.references!, notes) : readPairedReferences(o.gold!, o.ocr!);
  if (refs.length === 0) throw new UserInputError(`no reference lines in ${(o.references ?? [o.gold!]).join(', ')}`);
  const byName = new Map<string, SystemOutput>();
  for (const { name, file } of o.systems) {
    let s = byName.get(name);
    if (!s) byName.set(name, (s = { name, files: [], outputs: new Map(), imputed: 0 }));
    s.files.push(file);
    await readSystemFile(file, s, refs, hipe);
  }
  return { refs, systems: [...byName.values()], hipe };
}

export async function scoreFiles(o: ScoreFilesOptions): Promise<ScoreFilesResult> {
  const step = o.onStep ?? (() => {});
  const notes: ReadNotes = { excluded: 0, warnings: [] };
  const { refs, systems, hipe } = await readInputs(o, notes);
  const datasets = new Set(refs.map((r) => r.dataset));
  const excluded = notes.excluded ? ` (${notes.excluded} flagged exclude_from_icdar_evaluation left out)` : '';
  step(`read ${refs.length} reference lines in ${datasets.size} dataset(s)${excluded} and ${systems.length} system(s)`);
  const inputs = [...(o.references ?? [o.gold!, o.ocr!]), ...o.systems.map((s) => s.file)];
  const mtimeMs = Math.max(...inputs.map((f) => statSync(f).mtimeMs));
  const resultsDir = path.resolve(o.resultsDir);
  const { arms, warnings } = outsideArms(resultsDir, refs, systems, o.replicates ?? {}, mtimeMs, notes.excludedKeys);
  const analysis = await analyzeArms({
    resultsDir,
    baseline: OCR_ARM,
    loaded: { arms, skipped: [] },
    normalization: o.normalization ?? null,
    bootstrap: o.bootstrap,
    ...(o.minClusters !== undefined ? { minClusters: o.minClusters } : {}),
    ...(o.primaryMetric ? { primaryMetric: o.primaryMetric } : {}),
    ...(hipe ? { clusters: { blockLines: 1 } } : {}),
  });
  analysis.warnings.unshift(...notes.warnings, ...warnings);
  step(`scored ${arms.length} arms × ${refs.length} lines (${analysis.profiles.length} profile(s)); wrote ${analysis.files.length} files`);
  let report: string | null = null;
  const files = [...analysis.files];
  if (o.report !== false) {
    const dir = path.join(resultsDir, 'study');
    const r = await renderReport(dir, { title: 'Outside systems scored', arms: analysis });
    files.push(...r.files.map((f) => path.join('study', f)));
    report = path.join(dir, 'report.html');
    step(`report: ${report}`);
  }
  return { analysis, lines: refs.length, excluded: notes.excluded, report, files };
}
