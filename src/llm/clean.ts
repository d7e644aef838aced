/**
 * Output cleaning: turn a model's raw answer into the corrected text. Pure; the raw text is kept beside
 * it in corrections.jsonl (`raw_output`) so any cleaning decision can be audited or redone.
 *
 * Removes, in this order and repeatedly until nothing changes:
 *   - reasoning blocks `<think>…</think>` (also `<thinking>`); an unclosed `<think>` (generation cut by
 *     max tokens) drops the rest; a lone `</think>` (template opened it in the prompt) drops what precedes it;
 *   - a Markdown code fence around the answer (its content is kept; a preamble before it is dropped);
 *   - a leading label such as "النص المصحح:" / "Corrected text:" (optionally in bold or as a heading),
 *     unless the OCR source starts with such a label too (then it is content);
 *   - one pair of quotes around the whole answer ("…", «…», “…”, '…') — unless the OCR source itself
 *     was wrapped in the same pair, in which case the quotes are content;
 *   - surrounding whitespace.
 */

export interface CleanOptions {
  /** The OCR input, to keep quotes that were already part of it. */
  source?: string;
}

const LABELS = [
  'النص المصحح',
  'النص المصحّح',
  'النص بعد التصحيح',
  'النص الصحيح',
  'التصحيح',
  'الإجابة',
  'الاجابة',
  'الجواب',
  'الناتج',
  'المخرجات',
  'here is the corrected text',
  "here's the corrected text",
  'corrected text',
  'corrected version',
  'corrected',
  'correction',
  'output',
  'answer',
  'result',
];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Optional Markdown decoration (#, *, _, >) before the label and around the colon.
const LABEL_RE = new RegExp(`^[#>*_\\s]*(?:${LABELS.map(escapeRe).join('|')})[*_\\s]*[:：][*_]*[ \\t]*\\n?`, 'iu');

const QUOTE_PAIRS: [string, string][] = [
  ['"', '"'],
  ["'", "'"],
  ['“', '”'],
  ['”', '”'],
  ['«', '»'],
  ['„', '“'],
  ['‘', '’'],
  ['`', '`'],
];

function stripThink(s: string): string {
  s = s.replace(/<(think|thinking)>[\s\S]*?<\/\1>/gi, '');
  const lone = s.search(/<\/(?:think|thinking)>/i);
  if (lone !== -1) s = s.slice(s.indexOf('>', lone) + 1);
  const open = s.search(/<(?:think|thinking)>/i);
  if (open !== -1) s = s.slice(0, open);
  return s;
}

function stripFence(s: string): string {
  const m = /```[^\n`]*\n([\s\S]*?)\n?[ \t]*```/.exec(s);
  if (m) return m[1];
  // An opening fence with no closing one (cut by max tokens): drop the fence line.
  const open = /^```[^\n`]*\n/.exec(s);
  return open ? s.slice(open[0].length) : s;
}

function wrappedIn(s: string, open: string, close: string): boolean {
  if (s.length < open.length + close.length + 1 || !s.startsWith(open) || !s.endsWith(close)) return false;
  const inner = s.slice(open.length, s.length - close.length);
  // Quotes inside mean the outer ones are probably not a wrapper ("a" and "b").
  return !inner.includes(open) && !inner.includes(close);
}

function stripQuotes(s: string, source: string | undefined): string {
  const src = source?.trim();
  for (const [open, close] of QUOTE_PAIRS) {
    if (wrappedIn(s, open, close)) {
      if (src && src.startsWith(open) && src.endsWith(close)) return s;
      return s.slice(open.length, s.length - close.length);
    }
  }
  return s;
}

export function cleanOutput(raw: string, opts: CleanOptions = {}): string {
  // Classical texts can begin with a label-like word ("الجواب: …"): if the source does, it is content.
  const sourceHasLabel = opts.source !== undefined && LABEL_RE.test(opts.source.normalize('NFC').trim());
  let s = stripThink(raw.replace(/\r\n?/g, '\n'));
  for (let i = 0; i < 5; i++) {
    const before = s;
    s = s.trim();
    s = stripFence(s).trim();
    if (!sourceHasLabel) s = s.replace(LABEL_RE, '').trim();
    s = stripQuotes(s, opts.source).trim();
    if (s === before) break;
  }
  return s;
}
