/**
 * A study over every OCR_GS line (5,092 in the shared data) without an LLM, for the Lines view's property
 * test and bench/report-size.ts: `rag` returns the gold text on every third line and the OCR text
 * otherwise, `zero_shot` returns the OCR text (identity); each line "retrieves" the gold text of the next
 * three lines of its book, with made-up scores, so the view carries a realistic amount of context.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { readOcrGsBook, writeStudy, type Pair } from '../analysis/helpers';

/** Every OCR_GS book folder under `ocrGsRoot`: dataset key → its lines. */
export function ocrGsDatasets(ocrGsRoot: string): Record<string, Pair[]> {
  const out: Record<string, Pair[]> = {};
  for (const d of readdirSync(ocrGsRoot)
    .filter((f) => f.startsWith('book_'))
    .sort()) {
    out[`OCR_GS_${d.replace(/^book_/, '')}`] = readOcrGsBook(path.join(ocrGsRoot, d));
  }
  return out;
}

/** The first `limit` lines, datasets in order (a dataset left with none is dropped). */
function firstLines(datasets: Record<string, Pair[]>, limit: number): Record<string, Pair[]> {
  const out: Record<string, Pair[]> = {};
  let left = limit;
  for (const [ds, pairs] of Object.entries(datasets)) {
    if (left <= 0) break;
    out[ds] = pairs.slice(0, left);
    left -= out[ds].length;
  }
  return out;
}

/**
 * Write `<root>/phase5` (rag + inference_input) and `<root>/phase2` (zero_shot) for every OCR_GS line, or for
 * the first `limit` of them (a quick bench run).
 */
export function writeOcrGsStudy(root: string, ocrGsRoot: string, limit = Infinity): { ragDir: string; baselineDir: string; lines: number } {
  const datasets = firstLines(ocrGsDatasets(ocrGsRoot), limit);
  const dirs = writeStudy(root, {
    datasets,
    phase5: (p, i) => ({ corrected: i % 3 === 0 ? p.gt : p.ocr }),
    phase2: (p) => ({ corrected: p.ocr }),
    retrieval: (p, i, ds) => {
      const book = datasets[ds];
      const hits = [1, 2, 3].map((k) => book[(i + k) % book.length]);
      return {
        scores: [0.91, 0.84, 0.77].map((s) => s - (i % 10) / 50),
        sources: hits.map((h, k) => ({ source_uri: `${ds}.Shamela000${k}-ara1`, idx: i * 3 + k, date: 300 })),
        texts: hits.map((h) => h.gt),
      };
    },
  });
  return { ...dirs, lines: Object.values(datasets).reduce((a, l) => a + l.length, 0) };
}
