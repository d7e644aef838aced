/**
 * Study arms made of real OCR_GS lines without a model or an index: each arm is a corrections.jsonl written
 * from a policy (the OCR text, the gold text on some lines, …) beside its arm.json, in the layout the arms
 * analysis reads (`<root>/arms/<arm>/`). Used by test/analysis/study/arms-stats.test.ts and bench/arms-ci.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadDataset, type OcrSample } from '../../src/datasets';
import { OCR_GS_ROOT } from './shared-data';

export const OCR_GS_BOOKS = ['IbnAthir.Kamil', 'IbnFaqihHamadhani.Buldan', 'IbnQutayba.Adab', 'Jahiz.Hayawan', 'Yacqubi.Tarikh'] as const;

/** The lines of the given books in dataset order (`OCR_GS-<book>`, code-unit order), file order within each. */
export async function loadOcrGs(books: readonly string[] = OCR_GS_BOOKS): Promise<OcrSample[]> {
  const out: OcrSample[] = [];
  for (const book of [...books].sort()) {
    const d = await loadDataset(
      { key: `OCR_GS-${book}`, type: 'paired_dir', path: path.join(OCR_GS_ROOT, `book_${book}`) },
      { logProblems: false },
    );
    out.push(...d.samples);
  }
  return out;
}

/** What an arm writes for line i: the corrected text, or null to leave the line out of its corrections. */
export type Policy = (s: OcrSample, i: number) => string | null;

export interface ArmSpec {
  name: string;
  prompt?: 'rag' | 'zero_shot';
  mode?: 'dense' | 'hybrid' | 'random' | 'gold_query' | 'none';
  top_k?: number;
  policy: Policy;
}

/** `<root>/arms/<name>/arm.json` + corrections.jsonl for every arm. */
export function writeOcrGsArms(root: string, lines: OcrSample[], arms: ArmSpec[]): void {
  for (const a of arms) {
    const dir = path.join(root, 'arms', a.name);
    mkdirSync(dir, { recursive: true });
    const prompt = a.prompt ?? 'rag';
    const mode = a.mode ?? (prompt === 'zero_shot' ? 'none' : 'dense');
    writeFileSync(
      path.join(dir, 'arm.json'),
      JSON.stringify({
        name: a.name,
        prompt,
        retrieval: { mode, top_k: a.top_k ?? (mode === 'none' ? 0 : 3), fingerprint: null },
        upper_bound: mode === 'gold_query',
        model: 'test/none',
        guard: null,
      }),
    );
    const recs: string[] = [];
    lines.forEach((s, i) => {
      const text = a.policy(s, i);
      if (text === null) return;
      recs.push(
        JSON.stringify({
          sample_id: s.sample_id,
          dataset: s.dataset,
          prompt_type: prompt,
          prompt_version: 'test',
          model: 'test/none',
          ocr_text: s.ocr_text,
          gt_text: s.gt_text,
          corrected_text: text,
          raw_output: text,
          latency_ms: null,
          prompt_tokens: null,
          completion_tokens: null,
          error: null,
        }),
      );
    });
    writeFileSync(path.join(dir, 'corrections.jsonl'), recs.join('\n') + '\n');
  }
}

/** The OCR text (the identity "correction"). */
export const identity: Policy = (s) => s.ocr_text;
/** The gold text on every third line, the OCR text elsewhere. */
export const gold3: Policy = (s, i) => (i % 3 === 0 ? s.gt_text : s.ocr_text);
