/**
 * A small study-arms tree for the arms Lines-view tests (`<root>/arms/<arm>/` with arm.json, corrections.jsonl and
 * inference_input.jsonl, as the study-arms layout has it, docs/study-arms.md). Line CERs, worked out by hand:
 *
 *   line     gold (chars)  OCR CER (band)   zero_shot  rag (guard)             rag_k1    oracle †
 *   D1/l1    10            1/10 (10–20%)    0          0     kept              2/10      0
 *   D1/l2    20            1/20 (5–10%)     1/20       0     trimmed (raw "Here: …")   1/20  0
 *   D1/l3    10            3/10 (>20%)      3/10       2/10  kept              3/10      0
 *   D1/l5    10            1/10 (10–20%)    — only in the baseline's inference input; no arm has a line
 *   D2/m1    50            1/50 (2–5%)      1/50       1/50  fell_back:edit_ratio (raw "zzz")  1/50  0
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { armCorrectionRecord } from '../helpers/records';
import { run } from '../../analysis/stage';
import type { AnalyzeOptions } from '../../analysis/types';

export const G10 = 'abcdefghij';
export const G20 = 'abcdefghijklmnopqrst';
export const ARM_LINES = {
  D1: [
    { id: 'l1', gt: G10, ocr: 'abcdefghiX' },
    { id: 'l2', gt: G20, ocr: 'abcdefghijklmnopqrsX' },
    { id: 'l3', gt: G10, ocr: 'abcdefgXYZ' },
  ],
  D2: [{ id: 'm1', gt: 'x'.repeat(50), ocr: 'x'.repeat(49) + 'q' }],
} as const;
/** In the baseline arm's inference input only (not yet corrected by any arm). */
export const INPUT_ONLY = { id: 'l5', gt: 'klmnopqrst', ocr: 'klmnopqrsX' } as const;

type Line = { id: string; gt: string; ocr: string };
interface Out {
  corrected: string;
  raw?: string;
  guard?: string;
}

const GUARD = { enabled: true, max_edit_ratio: 0.5, length_ratio: [0.6, 1.5], trim_overgeneration: true };
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Two retrieved sentences per line; the arm's name is in the source URI so each arm's own input is recognisable. */
function inputRecord(arm: string, ds: string, l: Line) {
  return {
    sample_id: l.id,
    dataset: ds,
    ocr_text: l.ocr,
    gt_text: l.gt,
    prompt_type: 'rag',
    prompt_version: 'p5v1',
    retrieval_context: ['نصوص مرجعية صحيحة:', `1. قال الشيخ ${l.id}`, '2. حدثنا أبو بكر'].join('\n'),
    retrieved_k: 2,
    retrieval_scores: [0.91, 0.5],
    retrieval_sources: [
      { source_uri: `0255Jahiz.${arm}.X-ara1`, idx: 1 },
      { source_uri: '0276IbnQutayba.Adab.Y-ara1', idx: 2 },
    ],
  };
}

function writeArm(root: string, info: Record<string, unknown>, correct: (l: Line) => Out, extraInput: Array<[string, Line]> = []): void {
  const name = String(info.name);
  const dir = path.join(root, 'arms', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'arm.json'), JSON.stringify(info));
  const recs: unknown[] = [];
  const inputs: unknown[] = [];
  for (const [ds, lines] of Object.entries(ARM_LINES)) {
    for (const l of lines) {
      const o = correct(l);
      inputs.push(inputRecord(name, ds, l));
      recs.push(armCorrectionRecord(l, ds, info.prompt === 'zero_shot' ? 'zero_shot' : 'rag', o));
    }
  }
  for (const [ds, l] of extraInput) inputs.splice(3, 0, inputRecord(name, ds, l)); // l5 after D1's three lines
  writeFileSync(path.join(dir, 'corrections.jsonl'), jsonl(recs));
  writeFileSync(path.join(dir, 'inference_input.jsonl'), jsonl(inputs));
}

const ret = (mode: string, top_k: number) => ({ mode, top_k, fingerprint: `fp-${mode}-${top_k}` });

/** zero_shot (baseline; its input holds l5 too), rag (guarded), rag_k1 and oracle (upper bound); see the table above. */
export function writeArmsLinesTree(root: string): void {
  writeArm(
    root,
    { name: 'zero_shot', prompt: 'zero_shot', retrieval: ret('none', 0), upper_bound: false, model: 'm', guard: null },
    (l) => ({ corrected: l.id === 'l1' ? l.gt : l.ocr }),
    [['D1', INPUT_ONLY]],
  );
  writeArm(root, { name: 'rag', prompt: 'rag', retrieval: ret('dense', 2), upper_bound: false, model: 'm', guard: GUARD }, (l) => {
    switch (l.id) {
      case 'l2':
        return { corrected: l.gt, raw: `Here: ${l.gt}`, guard: 'trimmed' };
      case 'l3':
        return { corrected: 'abcdefgXYj', guard: 'kept' };
      case 'm1':
        return { corrected: l.ocr, raw: 'zzz', guard: 'fell_back:edit_ratio' };
      default:
        return { corrected: l.gt, guard: 'kept' };
    }
  });
  writeArm(root, { name: 'rag_k1', prompt: 'rag', retrieval: ret('dense', 1), upper_bound: false, model: 'm', guard: null }, (l) => ({
    corrected: l.id === 'l1' ? 'abcdefghYY' : l.ocr,
  }));
  writeArm(root, { name: 'oracle', prompt: 'rag', retrieval: ret('gold_query', 2), upper_bound: true, model: 'm', guard: null }, (l) => ({
    corrected: l.gt,
  }));
}

/**
 * The tree of writeArmsLinesTree in `root`, analysed as the analyze stage runs it (50 resamples, no PNG charts):
 * the arms report, arms.json and the Lines view's documents in `<root>/study/`.
 */
export async function analyzeArmsLinesTree(root: string, datasetInfo?: AnalyzeOptions['datasetInfo']): Promise<void> {
  writeArmsLinesTree(root);
  await run(
    {
      ragDir: path.join(root, 'phase5'),
      bootstrap: { iterations: 50, seed: 1 },
      report: { png: false },
      logFile: false,
      arms: { resultsDir: root, baseline: 'zero_shot' },
      ...(datasetInfo ? { datasetInfo } : {}),
    },
    {},
    'silent',
  );
}
