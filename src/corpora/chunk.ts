/**
 * Token-window chunking with overlap and heading hints (docs/corpus.md#generic-corpora: 900-token chunks,
 * 180-token overlap, sentence bias, headings start new chunks).
 *
 * Tokens are counted per whitespace-separated word with a pluggable counter: 1 per word by default, or
 * a Hugging Face tokenizer (the embedding model's tokenizer.json, so chunk_size means what the encoder
 * sees). Chunks never split a word, so every chunk is an exact slice of the input (char_start/char_end
 * point into it).
 */

export interface ChunkOptions {
  /** Max tokens per chunk (default 900). */
  size?: number;
  /** Tokens shared by consecutive chunks of a section (default 180; must be < size). */
  overlap?: number;
  /** Tokens of one word (default 1). */
  countTokens?: (word: string) => number;
  /** A line matching this starts a new section (default: Markdown `#` headings and OpenITI `### |`). */
  headingPattern?: RegExp | null;
  /**
   * End a chunk after the last sentence end (. ! ? ؟ ۔ or a line break) in the last `sentenceBias` share of
   * the chunk (default 0.25; 0 = cut exactly at size).
   */
  sentenceBias?: number;
}

export interface TextChunk {
  text: string;
  /** Offsets in the input (UTF-16 code units, as String.slice). */
  char_start: number;
  char_end: number;
  tokens: number;
  /** Text of the heading of the section the chunk belongs to (null before the first heading). */
  heading: string | null;
}

export const DEFAULT_HEADING = /^\s{0,3}(#{1,6}\s+\S|### \|)/;
const SENTENCE_END = /[.!?؟۔…]["'»)\]]*$/u;

interface Word {
  start: number;
  end: number;
  tokens: number;
  /** Ends a sentence, or a line follows it. */
  boundary: boolean;
}

export function chunkText(text: string, opts: ChunkOptions = {}): TextChunk[] {
  const size = opts.size ?? 900;
  const overlap = opts.overlap ?? 180;
  const bias = opts.sentenceBias ?? 0.25;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size)
    throw new RangeError(`chunk overlap must be an integer in [0, size), got ${overlap} (size ${size})`);
  if (!(bias >= 0 && bias < 1)) throw new RangeError(`sentenceBias must be in [0, 1), got ${bias}`);
  const count = opts.countTokens ?? (() => 1);
  const heading = opts.headingPattern === undefined ? DEFAULT_HEADING : opts.headingPattern;

  // Sections: a heading line starts a new one.
  const sections: { start: number; end: number; heading: string | null }[] = [];
  let current = { start: 0, end: text.length, heading: null as string | null };
  if (heading) {
    const lineRe = /[^\n]*(\n|$)/g;
    let m: RegExpExecArray | null;
    while ((m = lineRe.exec(text)) !== null && m[0].length > 0) {
      const line = m[0].replace(/\r?\n$/, '');
      if (heading.test(line) && m.index > current.start) {
        sections.push({ ...current, end: m.index });
        current = { start: m.index, end: text.length, heading: line.replace(/^[\s#|]+/, '').trim() };
      } else if (heading.test(line)) current.heading = line.replace(/^[\s#|]+/, '').trim();
    }
  }
  sections.push(current);

  const out: TextChunk[] = [];
  for (const sec of sections) {
    const words: Word[] = [];
    const re = /\S+/g;
    const body = text.slice(sec.start, sec.end);
    let m: RegExpExecArray | null;
    while ((m = re.exec(body)) !== null) {
      const start = sec.start + m.index;
      const end = start + m[0].length;
      const after = text.slice(end, end + 2);
      words.push({ start, end, tokens: Math.max(1, count(m[0])), boundary: SENTENCE_END.test(m[0]) || /^\s*\n/.test(after) });
    }
    let i = 0;
    while (i < words.length) {
      // Greedy window [i, j) within size (a single over-long word still forms a chunk).
      let j = i;
      let used = 0;
      while (j < words.length && (j === i || used + words[j].tokens <= size)) used += words[j++].tokens;
      if (j < words.length && bias > 0) {
        // Prefer to end on a sentence boundary within the last `bias` share of the window.
        let acc = used;
        for (let e = j - 1; e > i; e--) {
          if (words[e].boundary) {
            if (acc >= (1 - bias) * size) {
              used = acc;
              j = e + 1;
            }
            break;
          }
          acc -= words[e].tokens;
          if (acc < (1 - bias) * size) break;
        }
      }
      out.push({
        text: text.slice(words[i].start, words[j - 1].end),
        char_start: words[i].start,
        char_end: words[j - 1].end,
        tokens: used,
        heading: sec.heading,
      });
      if (j >= words.length) break;
      // Next window starts so that it repeats at most `overlap` tokens, and always moves forward.
      let k = j;
      let back = 0;
      while (k - 1 > i && back + words[k - 1].tokens <= overlap) back += words[--k].tokens;
      i = k;
    }
  }
  return out;
}
