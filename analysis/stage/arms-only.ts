import path from 'node:path';
import { writtenFiles } from '../../src/stages/shared/written-file';
import { writeArmsLineDocuments } from '../lines/study-arms';
import { renderReport } from '../report/report';
import type { ArmsAnalysis } from '../study/arms';
import type { AnalyzeOptions } from '../types';
import { armsSummary } from './arms-summary';
import { studyReportDir } from './report-dir';
import type { AnalyzeResult } from './result';

/** A study whose results hold arms but no rag corrections of their own: the arms report (with the arms' Lines view) in `<results>/study/`. */
export async function armsOnlyResult(options: AnalyzeOptions, arms: ArmsAnalysis): Promise<AnalyzeResult> {
  const studyDir = studyReportDir(options.arms!.resultsDir);
  const lineFiles = await writeArmsLineDocuments({
    resultsDir: options.arms!.resultsDir,
    arms,
    collapseWhitespace: options.collapseWhitespace,
    datasetInfo: options.datasetInfo,
    lines: options.lines !== false,
  });
  const report =
    options.report === false ? null : await renderReport(studyDir, { ...(typeof options.report === 'object' ? options.report : {}), arms });
  const base = arms.arms.find((a) => a.is_baseline)!;
  const root = options.arms!.resultsDir;
  const written = await writtenFiles([
    ...arms.files.map((f) => path.join(root, f)),
    ...[...lineFiles, ...(report?.files ?? [])].map((f) => path.join(studyDir, f)),
  ]);
  return {
    ragDir: options.ragDir,
    report: path.join(studyDir, 'report.html'),
    written,
    overall: {
      num_samples: base.lines,
      n_paired: 0,
      ocr_cer: base.ocr_cer,
      zero_shot_cer: null,
      rag_cer: null,
      delta_cer: null,
      delta_cer_ci95: null,
      delta_cer_reason: null,
      interpretation: `A study of arms: ${arms.arms.length} arm(s) compared with ${arms.baseline} in ${path.join(studyDir, 'arms.json')}.`,
    },
    datasets: [],
    files: arms.files.length + lineFiles.length + (report?.files.length ?? 0),
    warnings: arms.warnings,
    arms: armsSummary(options.arms!.resultsDir, arms),
  };
}
