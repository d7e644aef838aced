/** Synthetic vectors and corpora for index tests that need no embedding model. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EmbedderIdentity } from '../../src/embed/embedder';
import { mulberry32 } from '../../analysis/stats/bootstrap';

/** Seeded PRNG so failures reproduce (the analysis module's mulberry32). */
export const rng = mulberry32;

function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/** n unit vectors around `clusters` random centres (structure like real embeddings, unlike uniform noise). */
export function clusteredUnitVectors(n: number, dims: number, seed = 1, clusters = 20, spread = 0.6): Float32Array {
  const r = rng(seed);
  const centres = Array.from({ length: clusters }, () => Array.from({ length: dims }, () => gauss(r)));
  const out = new Float32Array(n * dims);
  for (let i = 0; i < n; i++) {
    const c = centres[Math.floor(r() * clusters)];
    let s = 0;
    for (let j = 0; j < dims; j++) {
      const v = c[j] + spread * gauss(r) * Math.sqrt(dims) * 0.2;
      out[i * dims + j] = v;
      s += v * v;
    }
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < dims; j++) out[i * dims + j] *= inv;
  }
  return out;
}

export function bruteForceTopK(data: Float32Array, dims: number, q: Float32Array, k: number): { keys: number[]; scores: number[] } {
  const n = data.length / dims;
  const all: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < dims; j++) s += data[i * dims + j] * q[j];
    all.push([s, i]);
  }
  all.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return { keys: all.slice(0, k).map((x) => x[1]), scores: all.slice(0, k).map((x) => x[0]) };
}

/** Write corpus.jsonl (n synthetic sentences) and the matching headerless float32 vectors file. */
export function writeSyntheticCorpus(
  dir: string,
  vectors: Float32Array,
  dims: number,
): { corpusPath: string; vectorsPath: string; n: number } {
  mkdirSync(dir, { recursive: true });
  const n = vectors.length / dims;
  const corpusPath = path.join(dir, 'corpus.jsonl');
  const lines: string[] = [];
  for (let i = 0; i < n; i++)
    lines.push(
      JSON.stringify({ text: `جملة رقم ${i}`, source_uri: `0300Test.Book${i % 7}.X-ara1`, date: 276 + (i % 25), char_len: 10, idx: i }),
    );
  writeFileSync(corpusPath, lines.join('\n') + '\n');
  const vectorsPath = path.join(dir, 'index.vectors.f32.partial');
  writeFileSync(vectorsPath, Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  return { corpusPath, vectorsPath, n };
}

export function fakeModel(dims: number, over: Partial<EmbedderIdentity> = {}): EmbedderIdentity {
  return {
    id: 'synthetic',
    file: 'model.onnx',
    sha256: 'a'.repeat(64),
    externalDataSha256: null,
    dims,
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    passagePrefix: '',
    maxLength: 128,
    ...over,
  };
}

// Word lists for generated Arabic sentences (our own text, so no corpus data is copied into the repo).
const SUBJECTS = ['الشيخ', 'الفقيه', 'الشاعر', 'الأمير', 'القاضي', 'التاجر', 'الطبيب', 'المؤرخ', 'الكاتب', 'الراوي', 'المعلم', 'الوزير'];
const VERBS = ['قال', 'ذكر', 'روى', 'كتب', 'حدث', 'أخبر', 'زعم', 'أنشد'];
const OBJECTS = [
  'أن العلم نور',
  'أن الصبر مفتاح الفرج',
  'أن المطر نزل على البادية',
  'أن القافلة وصلت إلى البصرة',
  'أن الكتاب ضاع في الطريق',
  'أن النهر فاض في الربيع',
  'أن الخليفة خرج إلى الصيد',
  'أن السوق امتلأ بالناس',
  'أن الفرس سبقت الخيل',
  'أن الليل طال على المسافرين',
];
const TAILS = [
  'في أول الزمان',
  'عند صلاة العصر',
  'بعد رحيل القوم',
  'في أيام الشتاء',
  'قبل طلوع الفجر',
  'على باب المدينة',
  'من غير شك',
  'والله أعلم',
];

/** `n` distinct generated Arabic sentences (deterministic for a seed). */
export function generatedArabicSentences(n: number, seed = 1): string[] {
  const r = rng(seed);
  const pick = <T>(a: T[]) => a[Math.floor(r() * a.length)];
  const out = new Set<string>();
  while (out.size < n) out.add(`${pick(VERBS)} ${pick(SUBJECTS)} ${pick(OBJECTS)} ${pick(TAILS)}`);
  return [...out];
}

/** Write a corpus.jsonl in the schema of docs/corpus.md#corpusjsonl for the given texts; returns its path. */
export function writeCorpus(file: string, texts: string[]): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    texts
      .map((text, idx) =>
        JSON.stringify({
          text,
          source_uri: `0300Gen.Book${idx % 3}.Gen-ara1`,
          date: 280 + (idx % 20),
          char_len: Array.from(text).length,
          idx,
        }),
      )
      .join('\n') + '\n',
  );
  return file;
}

// Letters that OCR confuses (mostly dot patterns), for OCR-like noise.
const CONFUSABLE: Record<string, string> = {
  ب: 'تن',
  ت: 'بث',
  ث: 'تن',
  ن: 'بت',
  ي: 'ى',
  ى: 'ي',
  ج: 'حخ',
  ح: 'جخ',
  خ: 'حج',
  د: 'ذ',
  ذ: 'د',
  ر: 'ز',
  ز: 'ر',
  س: 'ش',
  ش: 'س',
  ص: 'ض',
  ض: 'ص',
  ط: 'ظ',
  ظ: 'ط',
  ع: 'غ',
  غ: 'ع',
  ف: 'ق',
  ق: 'ف',
  ه: 'ة',
  ة: 'ه',
  ا: 'أإ',
  أ: 'اإ',
  إ: 'اأ',
};

/** Alter `edits` characters of a sentence the way OCR does: confusable-letter swaps, a dropped letter, a split word. */
export function ocrNoise(text: string, edits: number, r: () => number): string {
  const chars = Array.from(text);
  for (let e = 0; e < edits; e++) {
    const letters = chars.map((c, i) => (/\p{L}/u.test(c) ? i : -1)).filter((i) => i >= 0);
    const i = letters[Math.floor(r() * letters.length)];
    const op = r();
    const alt = CONFUSABLE[chars[i]];
    if (op < 0.7 && alt) chars[i] = alt[Math.floor(r() * alt.length)];
    else if (op < 0.85) chars.splice(i, 1);
    else chars.splice(i, 0, ' ');
  }
  return chars.join('');
}
