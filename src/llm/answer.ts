/**
 * From what the backend returned to the text that is the correction (docs/outputs.md#correctionsjsonl): a
 * reasoning trace (the server's `reasoning_content`, or a `<think>…</think>` block in the content) is split off
 * into its own field and never reaches `corrected_text` or the guard; an answer cut at max_tokens is a
 * `truncated` failure; with a JSON `response_format` the correction is the answer's `jsonField` string, and an
 * answer that does not parse to one is an `invalid_json` failure.
 */
import { LlmError, type CompletionResult } from './types';

export interface Answer {
  /** The text to clean or guard: the content without its reasoning, or the JSON answer's field. */
  text: string;
  /** The reasoning trace, when the model gave one (else null). */
  reasoning: string | null;
}

const THINK_OPEN = /<think(?:ing)?>/i;
const THINK_CLOSE = /<\/think(?:ing)?>/i;

/**
 * `content` without a leading `<think>…</think>` (or `<thinking>`) block, and that block's inside (null when there
 * is none) — the blocks src/llm/clean.ts would drop. An unclosed block is all reasoning (generation was cut).
 */
export function splitThink(content: string): Answer {
  const close = THINK_CLOSE.exec(content);
  const open = THINK_OPEN.exec(content);
  // A template that opens the block itself leaves only the closing tag in the answer.
  if (close && (!open || open.index < close.index)) {
    const inside = content.slice(open ? open.index + open[0].length : 0, close.index);
    return { text: content.slice(close.index + close[0].length).replace(/^\s+/, ''), reasoning: inside.trim() };
  }
  if (open && !content.slice(0, open.index).trim()) return { text: '', reasoning: content.slice(open.index + open[0].length).trim() };
  return { text: content, reasoning: null };
}

/** The answer's text and reasoning, or the LlmError (`truncated`, `invalid_json`, `empty_content`) that records why there is none. */
export function readAnswer(res: CompletionResult, jsonField: string | null | undefined): Answer {
  const split = splitThink(res.text);
  const traces = [res.reasoning, split.reasoning].filter((r): r is string => typeof r === 'string' && r.length > 0);
  const reasoning = traces.length ? traces.join('\n') : null;
  if (res.finishReason === 'length') {
    throw new AnswerError(
      new LlmError(
        'truncated',
        `the answer was cut at max_tokens (finish_reason "length", ${res.completionTokens ?? '?'} completion tokens${reasoning !== null && !split.text.trim() ? ', all of them reasoning' : ''}) — raise decoding.max_tokens`,
        200,
        res.attempts,
      ),
      reasoning,
    );
  }
  if (!jsonField) {
    // Only an answer that was all reasoning: an empty answer as such is the backend's to judge (the HTTP one retries it).
    if (split.reasoning !== null && !split.text.trim())
      throw new AnswerError(
        new LlmError('empty_content', 'the answer is empty once its reasoning is set apart', 200, res.attempts),
        reasoning,
      );
    return { text: split.text, reasoning };
  }
  let value: unknown;
  try {
    value = JSON.parse(split.text);
  } catch (err) {
    throw new AnswerError(new LlmError('invalid_json', `the answer is not JSON: ${(err as Error).message}`, 200, res.attempts), reasoning);
  }
  const field = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[jsonField] : undefined;
  if (typeof field !== 'string')
    throw new AnswerError(new LlmError('invalid_json', `the JSON answer has no string "${jsonField}"`, 200, res.attempts), reasoning);
  return { text: field, reasoning };
}

/** A failure found in an answer the server did give: the reason, and the reasoning trace to keep with it. */
export class AnswerError extends Error {
  constructor(
    readonly failure: LlmError,
    readonly reasoning: string | null,
  ) {
    super(failure.message);
    this.name = 'AnswerError';
  }
}
