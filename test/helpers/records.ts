/** A valid inference_input.jsonl record (RAG, one retrieved sentence) whose texts are its sample id. */
export function inferenceInputRecord(id: string, dataset = 'd') {
  return {
    sample_id: id,
    dataset,
    ocr_text: id,
    gt_text: id,
    prompt_type: 'rag',
    prompt_version: 'p5v1',
    retrieval_context: 'نصوص مرجعية صحيحة:\n1. قال أبو عثمان',
    retrieved_k: 1,
    retrieval_scores: [0.9],
    retrieval_sources: [],
  };
}

/** An arm's output for one line: the correction, the unguarded raw output when it differs, the guard's action. */
export interface LineOutput {
  corrected: string;
  raw?: string;
  guard?: string;
}

/** A valid corrections.jsonl record of one line (no error), as the analysis tests' arms write them. */
export function armCorrectionRecord(line: { id: string; ocr: string; gt: string }, dataset: string, promptType: string, o: LineOutput) {
  return {
    sample_id: line.id,
    dataset,
    prompt_type: promptType,
    prompt_version: 'v1',
    model: 'm',
    ocr_text: line.ocr,
    gt_text: line.gt,
    corrected_text: o.corrected,
    raw_output: o.raw ?? o.corrected,
    latency_ms: 1,
    prompt_tokens: 1,
    completion_tokens: 1,
    error: null,
    ...(o.guard ? { raw_text: o.raw ?? o.corrected, guard: o.guard } : {}),
  };
}
