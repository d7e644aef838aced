/**
 * A synthetic lines.json of any size for bench/report-size.ts: the OCR_GS lines (../shared/data/ocr-gs) with
 * `arms` made-up arms, scored by the analysis's own code (analysis/lines/explorer-lines.ts `explorerLines`), then repeated
 * until there are `n` lines — each further copy of a dataset's lines in its own seeded shuffle, with
 * `~<copy>` after the sample_id, so neither the index nor the side files see a repeated stretch.
 *
 * Arms: `zero_shot` (the OCR text, one letter changed on every seventh line; no retrieval, the baseline), then
 * `rag_1` … each returning per line the gold, the OCR, or either with one letter swapped for a dotted sibling,
 * with three retrieved sentences (gold lines drawn from all of OCR_GS, numbered as a prompt shows them,
 * made-up scores and sources); the last arm of three or more runs with a guard (every fifth line
 * `trimmed`, its raw output the text plus the next line's gold).
 */
import type { LineArm } from '../analysis/lines/line-arms';
import { lineKey } from '../analysis/inputs/records';
import type { AnalysisInputRecord, Loaded } from '../analysis/inputs/records';
import { errorClassesDocument, explorerLines, linesDocument, type ExplorerLine, type LinesOptions } from '../analysis/lines/explorer-lines';
import type { CorrectionRecord } from '../src/llm/records';
import { ocrGsDatasets } from '../test/helpers/ocr-gs-study';
import { syntheticCorrection } from './synthetic-record';
import type { Pair } from '../test/analysis/helpers';

const SIBLING: Record<string, string> = {
  ب: 'ت',
  ت: 'ث',
  ث: 'ن',
  ن: 'ي',
  ي: 'ب',
  ج: 'ح',
  ح: 'خ',
  خ: 'ج',
  د: 'ذ',
  ذ: 'د',
  ر: 'ز',
  ز: 'ر',
  س: 'ش',
  ش: 'س',
  ص: 'ض',
  ض: 'ص',
  ط: 'ظ',
  ظ: 'ط',
  ع: 'غ',
  غ: 'ع',
  ف: 'ق',
  ق: 'ف',
};

/** `text` with the first letter from position `seed` on that has a dotted sibling swapped for it. */
function swapLetter(text: string, seed: number): string {
  const cps = [...text];
  for (let k = 0; k < cps.length; k++) {
    const at = (seed + k) % cps.length;
    if (SIBLING[cps[at]]) {
      cps[at] = SIBLING[cps[at]];
      return cps.join('');
    }
  }
  return text;
}

/** What arm `k` returns for line `g` (a running number over all lines). */
export function armOutput(p: Pair, g: number, k: number): string {
  if (k === 0) return g % 7 === 3 ? swapLetter(p.ocr, g) : p.ocr;
  switch ((g * 7 + k * 13) % 6) {
    case 0:
    case 1:
      return p.gt;
    case 2:
    case 3:
      return p.ocr;
    case 4:
      return swapLetter(p.gt, g + k);
    default:
      return swapLetter(p.ocr, g + k);
  }
}

function correction(p: Pair, ds: string, text: string, raw: string): CorrectionRecord {
  return syntheticCorrection({ sample_id: p.id, dataset: ds, ocr_text: p.ocr, gt_text: p.gt }, text, { raw });
}

/** Three retrieved sentences for line `g` of arm `k`: gold lines drawn from the whole pool, as a corpus search would. */
export function retrievalOf(pool: readonly Pair[], i: number, g: number, k: number): AnalysisInputRecord {
  const hits = [1, 2, 3].map((h) => pool[(g * 7919 + k * 104729 + h * 1299709) % pool.length]);
  return {
    retrieval_scores: [0.91, 0.84, 0.77].map((s) => s - ((i + k) % 10) / 50),
    retrieval_sources: hits.map((_, h) => ({
      source_uri: `0${200 + ((g * 31 + h * 17 + k) % 700)}Author.Book${(g * 13 + h) % 997}.Shamela00${(g + h) % 9999}-ara1`,
      idx: i * 3 + h,
      date: 300 + k,
    })),
    retrieval_context: ['Similar sentences from classical Arabic texts:', ...hits.map((x, h) => `${h + 1}. ${x.gt}`)].join('\n'),
  } as unknown as AnalysisInputRecord;
}

function syntheticArms(datasets: Record<string, Pair[]>, armCount: number): LineArm[] {
  const arms: LineArm[] = [];
  const pool = Object.values(datasets).flat();
  for (let k = 0; k < armCount; k++) {
    const guarded = armCount >= 3 && k === armCount - 1;
    const arm: LineArm = {
      name: k === 0 ? 'zero_shot' : guarded ? 'guarded' : `rag_${k}`,
      retrievalMode: k === 0 ? 'none' : 'dense',
      upperBound: false,
      corrections: new Map(),
      inputs: k === 0 ? null : new Map(),
    };
    let g = 0;
    for (const [ds, book] of Object.entries(datasets)) {
      book.forEach((p, i) => {
        const text = armOutput(p, g, k);
        const trimmed = guarded && g % 5 === 4;
        const raw = trimmed ? `${text} ${book[(i + 1) % book.length].gt}` : text;
        const rec = correction(p, ds, text, raw);
        const loaded: Loaded<CorrectionRecord> = {
          record: rec,
          raw: guarded ? { ...rec, raw_text: raw, guard: trimmed ? 'trimmed' : 'kept' } : rec,
          line: i + 1,
        };
        arm.corrections.set(lineKey(ds, p.id), loaded);
        arm.inputs?.set(lineKey(ds, p.id), retrievalOf(pool, i, g, k));
        g++;
      });
    }
    arms.push(arm);
  }
  return arms;
}

/** Deterministic shuffle (a linear congruential generator seeded by `seed`). */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = (seed * 2654435761) >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** `n` lines from the scored OCR_GS lines: per dataset its share of `n`, the first copy in file order, then shuffled copies. */
function repeatLines(lines: readonly ExplorerLine[], datasets: readonly string[], n: number): ExplorerLine[] {
  const out: ExplorerLine[] = [];
  datasets.forEach((ds, d) => {
    const base = lines.filter((l) => l.dataset === ds);
    const quota = d === datasets.length - 1 ? n - out.length : Math.round((n * base.length) / lines.length);
    let taken = 0;
    for (let copy = 0; taken < quota && base.length > 0; copy++) {
      const order = copy === 0 ? base : shuffled(base, copy * 1000 + d);
      for (let i = 0; i < order.length && taken < quota; i++, taken++)
        out.push(copy === 0 ? order[i] : { ...order[i], sample_id: `${order[i].sample_id}~${copy}` });
    }
  });
  return out;
}

/** lines.json and error_classes.json of a synthetic study of `n` lines × `armCount` arms. */
export function syntheticLineDocuments(
  ocrGsRoot: string,
  n: number,
  armCount: number,
): { lines: ReturnType<typeof linesDocument>; errorClasses: ReturnType<typeof errorClassesDocument> } {
  if (!(armCount >= 1)) throw new Error(`--arms must be at least 1, got ${armCount}`);
  const datasets = ocrGsDatasets(ocrGsRoot);
  const names = Object.keys(datasets);
  const arms = syntheticArms(datasets, armCount);
  const byDataset = new Map(
    names.map((ds) => [ds, datasets[ds].map((p) => ({ record: { dataset: ds, sample_id: p.id, gt_text: p.gt, ocr_text: p.ocr } }))]),
  );
  const opts: LinesOptions = { collapseWhitespace: true, baseline: 'zero_shot', sourceMatcher: () => null, sourceExcluded: () => null };
  const scored = explorerLines({ datasets: names, byDataset }, arms, opts);
  const generatedAt = '2026-01-01T00:00:00.000Z';
  return {
    lines: linesDocument(repeatLines(scored.lines, names, n), arms, opts, generatedAt, names),
    errorClasses: errorClassesDocument(scored.classes, arms, generatedAt),
  };
}
