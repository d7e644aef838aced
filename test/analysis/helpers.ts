/**
 * Helpers for the analysis tests: read OCR_GS books and write synthetic study inputs
 * (inference_input.jsonl + Phase 5 / Phase 2 corrections.jsonl) in the binding schemas.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Pair {
  id: string;
  gt: string;
  ocr: string;
}

/** All `NNNNNN.gt.txt` + `NNNNNN.png.rec.txt` pairs of one OCR_GS book folder, trimmed, in file order. */
export function readOcrGsBook(dir: string): Pair[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.gt.txt'))
    .sort()
    .map((f) => ({
      id: f.replace(/\.gt\.txt$/, ''),
      gt: readFileSync(path.join(dir, f), 'utf8').trim(),
      ocr: readFileSync(path.join(dir, f.replace(/\.gt\.txt$/, '.png.rec.txt')), 'utf8').trim(),
    }));
}

export interface Correction {
  corrected: string;
  error?: string | null;
}

export interface Retrieval {
  scores: number[];
  /** The retrieved sentences (retrieval_context in the numbered_arabic format); default a placeholder. */
  texts?: string[];
  sources: Array<{ source_uri: string; idx: number; date?: number | string }>;
}

export interface StudySpec {
  datasets: Record<string, Pair[]>;
  /** Phase 5 (RAG) correction of a line. */
  phase5: (p: Pair, i: number, dataset: string) => Correction;
  /** Phase 2 (zero-shot) correction of a line; null = no Phase 2 line. Omit the whole function for no baseline. */
  phase2?: (p: Pair, i: number, dataset: string) => Correction | null;
  retrieval?: (p: Pair, i: number, dataset: string) => Retrieval;
  model?: string;
}

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');

/** retrieval_context as export writes it in the numbered_arabic style (header line, then "1. …"). */
function contextOf(r: Retrieval): string {
  if (r.scores.length === 0) return '';
  if (!r.texts) return 'ctx';
  return ['نصوص مرجعية صحيحة:', ...r.texts.map((t, i) => `${i + 1}. ${t}`)].join('\n');
}

/** Write `<root>/phase5/{inference_input,corrections}.jsonl` and `<root>/phase2/corrections.jsonl`. */
export function writeStudy(root: string, spec: StudySpec): { ragDir: string; baselineDir: string } {
  const ragDir = path.join(root, 'phase5');
  const baselineDir = path.join(root, 'phase2');
  mkdirSync(ragDir, { recursive: true });
  mkdirSync(baselineDir, { recursive: true });
  const inputs: unknown[] = [];
  const c5: unknown[] = [];
  const c2: unknown[] = [];
  const model = spec.model ?? 'test/model';
  for (const [ds, pairs] of Object.entries(spec.datasets)) {
    pairs.forEach((p, i) => {
      const r = spec.retrieval?.(p, i, ds) ?? { scores: [], sources: [] };
      const promptType = r.scores.length ? 'rag' : 'zero_shot_fallback';
      inputs.push({
        sample_id: p.id,
        dataset: ds,
        ocr_text: p.ocr,
        gt_text: p.gt,
        prompt_type: 'rag',
        prompt_version: 'p5v1',
        retrieval_context: contextOf(r),
        retrieved_k: r.scores.length,
        retrieval_scores: r.scores,
        retrieval_sources: r.sources,
      });
      const a = spec.phase5(p, i, ds);
      c5.push({
        sample_id: p.id,
        dataset: ds,
        prompt_type: promptType,
        prompt_version: 'p5v1',
        model,
        ocr_text: p.ocr,
        gt_text: p.gt,
        corrected_text: a.corrected,
        raw_output: a.corrected,
        latency_ms: 10,
        prompt_tokens: 100,
        completion_tokens: 20,
        error: a.error ?? null,
      });
      const b = spec.phase2?.(p, i, ds);
      if (b) {
        c2.push({
          sample_id: p.id,
          dataset: ds,
          prompt_type: 'zero_shot',
          prompt_version: 'v1',
          model,
          ocr_text: p.ocr,
          gt_text: p.gt,
          corrected_text: b.corrected,
          raw_output: b.corrected,
          latency_ms: 10,
          prompt_tokens: 80,
          completion_tokens: 20,
          error: b.error ?? null,
        });
      }
    });
  }
  writeFileSync(path.join(ragDir, 'inference_input.jsonl'), jsonl(inputs));
  writeFileSync(path.join(ragDir, 'corrections.jsonl'), jsonl(c5));
  if (spec.phase2) writeFileSync(path.join(baselineDir, 'corrections.jsonl'), jsonl(c2));
  return { ragDir, baselineDir };
}
