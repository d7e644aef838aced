/**
 * The correction record the benches' synthetic studies hold (bench/synthetic-arms.ts, bench/synthetic-lines.ts,
 * bench/report-size.ts): what infer writes for one line (src/llm/records.ts), made without an LLM — no latency,
 * no tokens, no error.
 */
import type { CorrectionRecord } from '../src/llm/records';

export interface SyntheticLine {
  sample_id: string;
  dataset: string;
  ocr_text: string;
  gt_text: string;
}

/** `line` corrected to `text` by a `prompt` arm; `raw` is the model's output before the guard (default `text`). */
export function syntheticCorrection(
  line: SyntheticLine,
  text: string,
  { prompt = 'rag', version = 'synthetic', raw = text }: { prompt?: 'rag' | 'zero_shot'; version?: string; raw?: string } = {},
): CorrectionRecord {
  return {
    sample_id: line.sample_id,
    dataset: line.dataset,
    prompt_type: prompt,
    prompt_version: version,
    model: 'bench/none',
    ocr_text: line.ocr_text,
    gt_text: line.gt_text,
    corrected_text: text,
    raw_output: raw,
    latency_ms: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    error: null,
  };
}
