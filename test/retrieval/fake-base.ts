/**
 * An in-memory base retriever for pipeline tests: "embeddings" are hashed character-trigram counts of
 * the matching key (64 dims, L2-normalised), search is exact cosine — deterministic and instant, with the
 * RAGRetriever.retrieveMany contract (score clamped to [0, 1], desc, ties by idx, min_score filter).
 */
import type { RetrievedChunk } from '../../src/index/retriever';
import type { BaseRetriever } from '../../src/retrieval/pipeline';
import { corpusStoreFrom, type CorpusStore } from '../../src/retrieval/store';
import { charNgrams, matchKey } from '../../src/retrieval/text';
import { MemoryVectors } from '../../src/retrieval/vectors';

export const DIMS = 64;

export function toyEmbed(text: string): Float32Array {
  const v = new Float32Array(DIMS);
  for (const g of charNgrams(matchKey(text), 3)) {
    let h = 2166136261;
    for (const ch of g) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
    v[(h >>> 0) % DIMS] += 1;
  }
  const n = Math.hypot(...v);
  return n ? v.map((x) => x / n) : v;
}

export interface FakeRecord {
  text: string;
  source_uri: string;
  date?: number | null;
  line?: number | null;
}

export interface Fake {
  base: BaseRetriever & { calls: number };
  store: CorpusStore;
  vectors: MemoryVectors;
  embedQueries: (qs: string[]) => Promise<Float32Array>;
}

/** `order`, when given, replaces the dense ranking (a "blind" encoder that always returns these idx). */
export function fakeBase(records: FakeRecord[], order?: number[]): Fake {
  const data = new Float32Array(records.length * DIMS);
  records.forEach((r, i) => data.set(toyEmbed(r.text), i * DIMS));
  const store = corpusStoreFrom(records);
  const base = {
    calls: 0,
    config: { maxChunkChars: 150 },
    async retrieveMany(queries: readonly string[], k = 3, minScore = 0): Promise<RetrievedChunk[][]> {
      base.calls++;
      return queries.map((q) => {
        const qv = toyEmbed(q);
        const scored = records.map((r, idx) => {
          let dot = 0;
          for (let j = 0; j < DIMS; j++) dot += qv[j] * data[idx * DIMS + j];
          return { idx, score: Math.min(1, Math.max(0, dot)) };
        });
        const ranked = order ? order.map((idx) => scored[idx]) : scored.sort((a, b) => b.score - a.score || a.idx - b.idx);
        return ranked
          .filter((s) => s.score >= minScore)
          .slice(0, k)
          .map((s, i) => ({
            text: records[s.idx].text,
            source_uri: records[s.idx].source_uri,
            score: s.score,
            rank: i + 1,
            idx: s.idx,
            date: records[s.idx].date ?? null,
          }));
      });
    },
  };
  return {
    base,
    store,
    vectors: new MemoryVectors(data, DIMS),
    embedQueries: async (qs) => {
      const out = new Float32Array(qs.length * DIMS);
      qs.forEach((q, i) => out.set(toyEmbed(q), i * DIMS));
      return out;
    },
  };
}

/** Lines of the synthetic OpenITI fixture (0200AuthorB.Tarikh.Fix004, physical lines 8–12) and others. */
export const RECORDS: FakeRecord[] = [
  { text: 'قال الشيخ أبو محمد إن الوفاء نور يهتدى به في الظلمات', source_uri: 'B.Tarikh', date: 200, line: 8 },
  { text: 'وذكر الراوي عن أبيه إن الكرم مفتاح كل خير في الدنيا', source_uri: 'B.Tarikh', date: 200, line: 9 },
  { text: 'وقال الأصمعي إن الوفاء زينة الرجال في المجالس', source_uri: 'B.Tarikh', date: 200, line: 10 },
  { text: 'وقال الأصمعي إن الصدق خير ما ورثه الآباء للأبناء', source_uri: 'B.Tarikh', date: 200, line: 11 },
  { text: 'قال الشيخ أبو محمد إن الصبر حصن منيع لأهل المروءة', source_uri: 'B.Tarikh', date: 200, line: 12 },
  { text: 'قَالَ الشَّيْخُ أَبُو مُحَمَّدٍ إِنَّ الوَفَاءَ نُورٌ يُهْتَدَى بِهِ فِي الظُّلُمَاتِ', source_uri: 'A.Copy', date: 10, line: 3 },
  { text: 'لكم أما الباب فإنه معرض والطريق بين وهو يبلغ الناس التلف وما اصغر الباب', source_uri: 'Y.Tarikh', date: 292, line: 1381 },
  { text: 'وأضيق الطريق التي تبلغ الناس النجاة', source_uri: 'Y.Tarikh', date: 292, line: 1382 },
];
