/**
 * The table of bench/baselines.ts: per book and pooled, on the held-out (non-dev) lines, the OCR's CER and each
 * corrector's, with ΔCER = CER(corrector) − CER(OCR) and its 95 % interval from the analysis's block bootstrap
 * (analysis/stats/block-stats.ts: clusters of DEFAULT_BLOCK_LINES consecutive lines of a book, books as strata).
 * Every figure in canonical form, profile `nfc` (src/text/profiles.ts).
 */
import { pairedBlockDelta, type BlockDesign } from '../analysis/stats/block-stats';
import { DEFAULT_BLOCK_LINES } from '../analysis/stats/clusters';
import { canonical } from '../src/text/canonical';
import { scorePair } from '../src/text/distance';

export interface ScoredLine {
  book: string;
  index: number;
  gt: string;
  ocr: string;
  /** Corrected text per corrector. */
  out: Record<string, string>;
}

function design(lines: readonly ScoredLine[]): BlockDesign {
  const books = [...new Set(lines.map((l) => l.book))];
  const blockOf = new Map<string, number>();
  const stratum: number[] = [];
  const block = Int32Array.from(lines, (l) => {
    const id = `${l.book}:${Math.floor(l.index / DEFAULT_BLOCK_LINES)}`;
    if (!blockOf.has(id)) {
      blockOf.set(id, stratum.length);
      stratum.push(books.indexOf(l.book));
    }
    return blockOf.get(id)!;
  });
  return { block, stratumOfBlock: Int32Array.from(stratum) };
}

const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const pp = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(2)}`;

/** One table row per book and one pooled, for `correctors` (names of ScoredLine.out). */
export function baselineTable(lines: readonly ScoredLine[], correctors: readonly string[], iterations: number, seed = 42): string[] {
  const head = ['lines', 'OCR CER'];
  for (const c of correctors) head.push(`${c} CER`, `${c} ΔCER pp [95 % CI]`, `${c} lines changed`);
  const out = [`| book | ${head.join(' | ')} |`, `|---|${head.map(() => '---:').join('|')}|`];
  const books = [...new Set(lines.map((l) => l.book))];
  for (const scope of [...books, 'pooled']) {
    const ls = lines.filter((l) => scope === 'pooled' || l.book === scope);
    const ref = Float64Array.from(ls, (l) => scorePair(l.gt, l.ocr).refChars);
    const ocr = Float64Array.from(ls, (l) => scorePair(l.gt, l.ocr).charEdits);
    const sum = (a: Float64Array) => a.reduce((s, x) => s + x, 0);
    const cells = [ls.length.toLocaleString('en'), pct(sum(ocr) / sum(ref))];
    for (const c of correctors) {
      const ed = Float64Array.from(ls, (l) => scorePair(l.gt, l.out[c]).charEdits);
      const d = pairedBlockDelta(ref, ocr, ed, design(ls), { iterations, permutations: iterations, seed }).pooled;
      const ci = d.ci95 ? ` [${pp(d.ci95[0])}, ${pp(d.ci95[1])}]` : '';
      const changed = ls.filter((l) => l.out[c] !== canonical(l.ocr)).length;
      cells.push(pct(sum(ed) / sum(ref)), `${pp(d.delta ?? 0)}${ci}`, changed.toLocaleString('en'));
    }
    out.push(`| ${scope === 'pooled' ? '**pooled**' : scope} | ${cells.join(' | ')} |`);
  }
  return out;
}
