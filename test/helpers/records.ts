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
