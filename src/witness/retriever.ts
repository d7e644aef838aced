/**
 * The witness retriever: an index (in memory or loaded from its directory) with search and hit mapping
 * behind one call, `retrieve(ocrLine, k)`, returning hits best first.
 */
import type { WitnessIndexData } from './build';
import { loadWitnessDir, type WitnessManifest } from './files';
import { spanToHit, type LineTexts, type WitnessHit } from './hits';
import { searchInContext, type LineInContext } from './context-search';
import { searchKey, searchText, type WitnessSearchOptions, type WitnessSpan } from './search';

/** Alone searches a retriever keeps (a few pages of lines: a line's neighbours are asked just before it). */
const RECENT_SEARCHES = 256;

export class WitnessRetriever {
  constructor(
    readonly data: WitnessIndexData,
    private readonly texts: LineTexts & { close?(): void },
    readonly options: WitnessSearchOptions = {},
    readonly manifest: WitnessManifest | null = null,
  ) {}

  static open(dir: string, options: WitnessSearchOptions = {}): WitnessRetriever {
    const { manifest, data, texts } = loadWitnessDir(dir);
    return new WitnessRetriever(data, texts, options, manifest);
  }

  /** In-memory index over line texts held in an array (tests, benches). */
  static inMemory(data: WitnessIndexData, texts: readonly string[], options: WitnessSearchOptions = {}): WitnessRetriever {
    return new WitnessRetriever(data, { get: (l) => texts[l] }, options);
  }

  /** The NFC text of the index's lines (what hits quote). */
  get lineTexts(): LineTexts {
    return this.texts;
  }

  retrieve(query: string, k = 3, minScore = this.options.minScore ?? 0): WitnessHit[] {
    return searchText(this.data, query, k, { ...this.options, minScore }).map((s, i) => spanToHit(this.data, this.texts, s, i + 1));
  }

  /**
   * Hits for an OCR line, its neighbouring OCR lines resolving a line that alone is ambiguous
   * (src/witness/context-search.ts). The alone searches of recent keys are kept: asked in page order, a line's
   * search as the neighbour of the line before it serves again when it is the query.
   */
  retrieveInContext(line: LineInContext, k = 3, minScore = this.options.minScore ?? 0): WitnessHit[] {
    const alone = (key: Uint16Array) => this.aloneSearch(key, Math.max(k, 2));
    return searchInContext(this.data, line, k, { ...this.options, minScore }, alone).map((s, i) =>
      spanToHit(this.data, this.texts, s, i + 1),
    );
  }

  private readonly recent = new Map<string, WitnessSpan[]>();

  private aloneSearch(key: Uint16Array, k: number): WitnessSpan[] {
    const id = `${k}:${String.fromCharCode(...key)}`;
    let spans = this.recent.get(id);
    if (!spans) {
      spans = searchKey(this.data, key, k, { ...this.options, minScore: 0 });
      if (this.recent.size >= RECENT_SEARCHES) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(id, spans);
    }
    return spans;
  }

  retrieveMany(queries: readonly string[], k = 3, minScore?: number): WitnessHit[][] {
    return queries.map((q) => this.retrieve(q, k, minScore));
  }

  close(): void {
    this.texts.close?.();
  }
}
