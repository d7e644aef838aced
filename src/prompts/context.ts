/**
 * The retrieval context as a prompt shows it (docs/retrieval.md#prompt-context): each retrieved sentence cut at a
 * word boundary and put on its own line, numbered under an Arabic header or plain.
 */

export type FormatStyle = 'numbered_arabic' | 'plain';

export const CONTEXT_HEADER = 'نصوص مرجعية صحيحة:';
export const DEFAULT_MAX_CHUNK_CHARS = 150;

/**
 * Cut a sentence to at most `maxChars` characters (code points) for the prompt (docs/retrieval.md#prompt-context): at the last
 * space within the limit, with no ellipsis. A word cut in half would look like exactly the kind of OCR
 * error the model is asked to fix, and an added "…" could be copied into the correction; a hard cut is
 * used only when the first word alone is longer than the limit. Whitespace runs (newlines too) become
 * one space so that every sentence stays on its own numbered line.
 */
export function truncateForPrompt(text: string, maxChars = DEFAULT_MAX_CHUNK_CHARS): string {
  const t = text.replace(/\s+/g, ' ').trim(); // one line per sentence, whatever the corpus holds
  const cps = Array.from(t);
  if (cps.length <= maxChars) return t;
  const head = cps.slice(0, maxChars + 1).join('');
  const cut = head.search(/\s\S*$/); // start of the last whitespace run before the (partial) last word
  if (cut > 0) return head.slice(0, cut).trimEnd();
  return cps.slice(0, maxChars).join('');
}

/**
 * Retrieval context for a prompt. "numbered_arabic": the header line then "1. …" per sentence;
 * "plain": the sentences one per line. Empty input → "".
 */
export function formatForPrompt(
  chunks: readonly { text: string }[],
  style: FormatStyle = 'numbered_arabic',
  maxChars = DEFAULT_MAX_CHUNK_CHARS,
): string {
  if (chunks.length === 0) return '';
  const lines = chunks.map((c) => truncateForPrompt(c.text, maxChars));
  if (style === 'plain') return lines.join('\n');
  if (style !== 'numbered_arabic') throw new Error(`format style must be "numbered_arabic" or "plain", got ${JSON.stringify(style)}`);
  return [CONTEXT_HEADER, ...lines.map((l, i) => `${i + 1}. ${l}`)].join('\n');
}
