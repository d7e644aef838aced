/**
 * The report's "When does retrieval help?" blocks (analysis/study/provenance.ts): each arm's ΔCER split by whether
 * the gold passage was in its context, and by the line's strongest hit class, with 95 % CIs.
 */
import { ciOr, emptyCellNote, pctF, ppF, type Block } from '../blocks';
import type { ProvenanceAnalysis, ProvenanceSplit } from '../../study/provenance';

const row = (arm: string, label: string, s: ProvenanceSplit): string[] => [
  arm,
  label,
  String(s.lines),
  pctF(s.cer),
  ppF(s.delta),
  ciOr(s.ci95),
  ppF(s.delta_vs_ocr),
  ciOr(s.ci95_vs_ocr),
];
const HEAD = ['arm', '', 'lines', 'CER', 'ΔCER vs baseline', '95% CI', 'ΔCER vs OCR', '95% CI'];
const ALIGN: Array<'l' | 'r'> = ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'];

export function provenanceSection(p: ProvenanceAnalysis): Block[] {
  const byContext = p.arms.flatMap((a) =>
    (['yes', 'no'] as const)
      .filter((k) => a.by_gold_in_context[k].lines > 0)
      .map((k) => row(a.arm, `gold passage in context: ${k}`, a.by_gold_in_context[k])),
  );
  const byClass = p.arms.flatMap((a) => Object.entries(a.by_class).map(([c, s]) => row(a.arm, c.replace('_', ' '), s!)));
  const contextNote = emptyCellNote(
    p.arms.flatMap((a) => [a.by_gold_in_context.yes, a.by_gold_in_context.no].filter((s) => s.lines > 0).map((s) => s.reason)),
  );
  const classNote = emptyCellNote(p.arms.flatMap((a) => Object.values(a.by_class).map((s) => s!.reason)));
  return [
    { kind: 'h3', text: 'When does retrieval help? ΔCER by gold passage in context' },
    {
      kind: 'p',
      text:
        `A hit is the same passage when fitting the line's gold text into it costs at most ${Math.round((1 - p.same_passage_min_similarity) * 100)} % of the gold's letters ` +
        '(similarity ≥ ' +
        p.same_passage_min_similarity +
        ' on letters only: NFC, no diacritics, tatweel, spaces or punctuation; alef/yaa/taa marbuta/hamza seats unified); ' +
        "otherwise same work (a version of the dataset's declared source) or other work. A line is split by its own arm's context; " +
        `ΔCER against ${p.baseline} on the same lines, 95% CIs from a paired bootstrap over lines within datasets.`,
    },
    { kind: 'table', head: HEAD, rows: byContext, align: ALIGN },
    ...contextNote,
    { kind: 'h3', text: "ΔCER by the line's strongest hit" },
    { kind: 'table', head: HEAD, rows: byClass, align: ALIGN },
    ...classNote,
  ];
}
