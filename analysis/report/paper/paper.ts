/**
 * study/paper/: what a paper takes as it is — the main table (main_table.tex, booktabs, CIs, the profile and the
 * method in its caption; main_table.csv), the paper row (paper_row.tex / .csv: RAG over OpenITI vs zero-shot) and
 * every figure of the report as SVG and as PNG at 300 dpi (the SVG's pixels taken at 96 per inch).
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as aq from 'arquero';
import { writeFileAtomic } from '../../../src/io/jsonl';
import type { ArmsAnalysis } from '../../study/arms';
import type { ReportDocs } from '../../charts/specs';
import { svgToPng } from '../../charts/render';
import type { RenderedChart } from '../blocks';
import { texEscape } from './latex';
import { mainRows, mainTableTex } from './main-table';
import { paperRowsFromArms, paperRowsFromDocs, paperRowTex, type PaperRow } from './paper-row';

export const PAPER_DIR = 'paper';
/** PNG zoom for 300 dpi from an SVG measured in CSS pixels (96 per inch). */
export const PRINT_SCALE = 300 / 96;

const csv = (rows: readonly object[]) => (rows.length ? aq.from(rows as object[]).toCSV() : '');

/** The method in words, for a caption: metric, profile and its rules, text preparation, intervals and test. */
export function methodCaption(a: ArmsAnalysis): string {
  const p = a.profiles.find((x) => x.primary);
  const b = a.methods.bootstrap;
  return (
    `CER: Levenshtein distance over code points / gold characters, under the ${texEscape(p?.profile ?? 'nfc')} profile (${texEscape(p?.rules ?? a.methods.text_preparation)}). ` +
    `$\\Delta$CER = CER(arm) $-$ CER(${a.baseline}), in percentage points; negative = fewer errors. ` +
    `95\\% CIs: paired percentile block bootstrap over clusters of lines (${b.iterations} resamples, seed ${b.seed}); ` +
    `$p$: block permutation test (${a.methods.permutations} permutations), Holm-adjusted over the planned contrasts. ` +
    '--- = no interval or test (too few clusters of lines) or not applicable.'
  );
}

function docsCaption(d: ReportDocs): string {
  const sc = d.metrics.scoring ?? {};
  return `CER: ${texEscape(sc.cer ?? 'Levenshtein distance over code points')}; text preparation: ${texEscape(sc.text_preparation ?? 'canonical form')}. 95\\% CIs: ${texEscape(d.comparison.overall?.bootstrap?.method ?? 'bootstrap')}. --- = no interval.`;
}

/** Write study/paper/ (replacing an earlier one); returns the files written, relative to `outDir`. */
export function writePaperOutputs(
  outDir: string,
  input: { arms: ArmsAnalysis | null; docs: ReportDocs | null; charts: readonly RenderedChart[]; png: boolean },
): string[] {
  const dir = path.join(outDir, PAPER_DIR);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const put = (name: string, data: string | Buffer) => {
    writeFileAtomic(path.join(dir, name), data);
    files.push(`${PAPER_DIR}/${name}`);
  };
  const { arms, docs } = input;
  if (arms) {
    const rows = mainRows(arms);
    put('main_table.tex', mainTableTex(rows, `Every arm per dataset. ${methodCaption(arms)}`));
    put('main_table.csv', csv(rows));
  }
  const paper: PaperRow[] | null = arms ? paperRowsFromArms(arms) : docs ? paperRowsFromDocs(docs) : null;
  if (paper) {
    const caption = arms ? methodCaption(arms) : docs ? docsCaption(docs) : '';
    put('paper_row.tex', paperRowTex(paper, `Row ${texEscape(paper[0].row)}: RAG over OpenITI vs zero-shot, same model. ${caption}`));
    put('paper_row.csv', csv(paper));
  }
  for (const ch of input.charts) {
    put(`${ch.name}.svg`, ch.svg);
    if (input.png) put(`${ch.name}.png`, svgToPng(ch.svg, PRINT_SCALE));
  }
  return files;
}
