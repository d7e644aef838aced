/** What the prompt shows of the hits: each hit's text or context window, the prompt budget, the context block and citations. */
import { type RetrievedChunk } from '../index/retriever';
import { CONTEXT_HEADER, truncateForPrompt, type FormatStyle } from '../prompts/context';
import { codePointCount, mergeWithinBudget } from './budget';
import type { PipelineChunk, PipelineContext } from './pipeline-types';

/** A hit's text as the prompt shows it: cut to maxChars, or with its context window within windowChars. */
export function promptTextFor(maxChars: number, windowChars: number): (c: RetrievedChunk) => string {
  return (c) => {
    const ctx = (c as Partial<PipelineChunk>).context;
    if (!ctx || (ctx.before.length === 0 && ctx.after.length === 0)) return truncateForPrompt(c.text, ctx ? windowChars : maxChars);
    return windowText(c.text, ctx.before, ctx.after, windowChars);
  };
}

export function formatContext(
  chunks: readonly RetrievedChunk[],
  style: FormatStyle,
  citations: boolean,
  promptText: (c: RetrievedChunk) => string,
): string {
  if (chunks.length === 0) return '';
  const lines = chunks.map(promptText);
  if (style === 'plain') return lines.map((l, i) => (citations ? `[#${i + 1}] ${l}` : l)).join('\n');
  if (style !== 'numbered_arabic') throw new Error(`format style must be "numbered_arabic" or "plain", got ${JSON.stringify(style)}`);
  return [CONTEXT_HEADER, ...lines.map((l, i) => `${i + 1}. ${l}`)].join('\n');
}

/** Keep hits in order while their prompt text fits max_chars, then max_tokens; number the kept ones. */
export function fitBudget(ctx: PipelineContext, list: PipelineChunk[]): PipelineChunk[] {
  const { options, stats } = ctx;
  let kept = list;
  for (const [limit, measure] of [
    [options.budget.max_chars, codePointCount],
    [options.budget.max_tokens, ctx.countTokens],
  ] as const) {
    if (limit === null || !measure) continue;
    const r = mergeWithinBudget(kept, ctx.promptText, { limit, measure });
    stats.droppedByBudget += r.dropped;
    kept = r.kept;
  }
  kept.forEach((c, i) => (c.rank = i + 1));
  return kept;
}

/**
 * A hit with its neighbours, within `maxChars`: the hit first (cut only when it alone is too long), then
 * neighbours nearest first, alternating before/after, each whole or not at all; joined in source order.
 */
export function windowText(hit: string, before: readonly string[], after: readonly string[], maxChars: number): string {
  const h = hit.trim();
  if (codePointCount(h) >= maxChars) return truncateForPrompt(h, maxChars);
  let used = codePointCount(h);
  const pre: string[] = [];
  const post: string[] = [];
  let bi = before.length - 1;
  let ai = 0;
  let bOpen = true;
  let aOpen = true;
  while ((bOpen && bi >= 0) || (aOpen && ai < after.length)) {
    for (const side of ['b', 'a'] as const) {
      if (side === 'b' && bOpen && bi >= 0) {
        const t = before[bi].trim();
        if (used + 1 + codePointCount(t) <= maxChars) {
          pre.unshift(t);
          used += 1 + codePointCount(t);
          bi--;
        } else bOpen = false;
      } else if (side === 'a' && aOpen && ai < after.length) {
        const t = after[ai].trim();
        if (used + 1 + codePointCount(t) <= maxChars) {
          post.push(t);
          used += 1 + codePointCount(t);
          ai++;
        } else aOpen = false;
      }
    }
  }
  return [...pre, h, ...post].join(' ');
}

/** Footnotes for cited context: "[i] source_uri, line N" (line omitted when unknown). */
export function formatCitations(chunks: readonly Pick<PipelineChunk, 'source_uri' | 'line' | 'idx'>[]): string {
  return chunks.map((c, i) => `[${i + 1}] ${c.source_uri || `corpus #${c.idx}`}${c.line ? `, line ${c.line}` : ''}`).join('\n');
}
