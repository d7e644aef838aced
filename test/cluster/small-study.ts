/**
 * The smallest whole study a cluster test can run in a minute or two on 2 cores: a generic JSONL corpus written by
 * the test (no OpenITI needed), a few OCR lines whose gold is in that corpus, the small E5 ONNX model, a FlatIP
 * index, two arms (rag, zero_shot) answered by a simulated OpenAI-compatible box, and the analysis of both.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { E5 } from '../embed/models';

const OPENINGS = [
  'وقال بعض الحكماء',
  'وروى أهل العلم',
  'وحدثنا عبد الله بن عمر',
  'وقال الأصمعي',
  'وحكى ابن الأعرابي',
  'وأخبرنا القاضي أبو بكر',
];
const SUBJECTS = ['الصبر', 'الوفاء', 'العلم', 'الصدق', 'الحلم', 'الجود', 'الأدب', 'العقل'];
const ENDINGS = ['حصن منيع لأهل المروءة', 'نور يهتدى به في الظلمات', 'خير ما ورثه الآباء للأبناء', 'زينة الرجال في المجالس'];

/** Corpus records: every opening × subject, each with one ending (distinct sentences of 40–70 characters). */
export const CORPUS_RECORDS = OPENINGS.length * SUBJECTS.length;
/** OCR lines: six corpus sentences with the OCR errors the simulated box corrects (ى for ي, a tatweel). */
export const OCR_LINES = 6;

function sentence(i: number): string {
  const opening = OPENINGS[Math.floor(i / SUBJECTS.length)];
  const subject = SUBJECTS[i % SUBJECTS.length];
  return `${opening} إن ${subject} ${ENDINGS[i % ENDINGS.length]}`;
}

/** `<dir>/corpus.jsonl` and `<dir>/ocr.jsonl`. */
export function writeStudyInputs(dir: string): void {
  const corpus = Array.from({ length: CORPUS_RECORDS }, (_, i) => JSON.stringify({ id: `c${i}`, text: sentence(i) }));
  writeFileSync(path.join(dir, 'corpus.jsonl'), corpus.join('\n') + '\n');
  const ocr = Array.from({ length: OCR_LINES }, (_, k) => {
    const gold = sentence(k * 7 + 1);
    const ocrText = gold.replace(/ي/g, 'ى').replace(' إن ', ' إـن ');
    return JSON.stringify({ sample_id: `line-${k}`, ocr_text: ocrText, gt_text: gold });
  });
  writeFileSync(path.join(dir, 'ocr.jsonl'), ocr.join('\n') + '\n');
}

/** The study's config (today's keys), on `address`, with queues of its own named after `port`. */
export function studyConfig(dir: string, address: string, simUrl: string, keyVar: string, port: string): object {
  return {
    run_name: 'mtls-study',
    paths: { results_dir: path.join(dir, 'study-results') },
    corpus: { source: { type: 'jsonl', path: path.join(dir, 'corpus.jsonl'), id_field: 'id' }, max_sentences: 1000 },
    index: { type: 'FlatIP', batch_size: 16 },
    retrieval: { top_k: 2 },
    export: { shard_size: 4 },
    rag: {
      embedding_model: 'intfloat/multilingual-e5-small',
      embedding: { model_dir: E5.dir, max_length: 64, batch_size: 16, threads: 1 },
    },
    datasets: { ocr: { type: 'jsonl', path: path.join(dir, 'ocr.jsonl') } },
    infer: {
      backend: 'openai',
      arms: ['rag', 'zero_shot'],
      shard_size: 4,
      openai: { base_url: simUrl, model: 'sim', api_key_env: keyVar },
    },
    analysis: { bootstrap_iterations: 50 },
    temporal: { address, queues: { cpu: `mtls-study-cpu-${port}`, gpu: `mtls-study-gpu-${port}` } },
  };
}
