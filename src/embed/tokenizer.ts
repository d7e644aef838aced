/**
 * Tokenization with @huggingface/tokenizers (tokenizers.js, maintained by Hugging Face; pure JS).
 *
 * Checked against the Rust `tokenizers` (Python) on 5,000 OpenITI sentences: identical ids for the
 * WordPiece tokenizer of all-MiniLM-L6-v2 and the XLM-R Unigram tokenizer of multilingual-e5-small
 * (see test/embed/tokenizer.test.ts, fixture from bench/python/make_fixtures.py). Speed is
 * ~6,500 sentences/s on one core, a few percent of model time.
 *
 * Only tokenizer.json is read (tokenizer_config.json is ignored, as the Rust library does), so the
 * ids match what the reference pipelines feed the model.
 */
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { ModelDirError } from './model-dir';

export interface TokenizerJsonInfo {
  modelType: string;
  /** `truncation.max_length` from tokenizer.json when it declares one. */
  truncationMaxLength: number | null;
}

export class TextTokenizer {
  private readonly tok: Tokenizer;
  /** Special tokens the post-processor puts before / after a single sequence ([CLS] … [SEP], <s> … </s>). */
  readonly prefixSpecials: number;
  readonly suffixSpecials: number;
  readonly info: TokenizerJsonInfo;

  private constructor(
    readonly file: string,
    json: Record<string, unknown>,
  ) {
    try {
      this.tok = new Tokenizer(json, {});
    } catch (err) {
      throw new ModelDirError(`tokenizer file ${file} could not be loaded: ${(err as Error).message}`);
    }
    const model = json.model as { type?: string } | undefined;
    const trunc = json.truncation as { max_length?: number } | null | undefined;
    this.info = { modelType: model?.type ?? 'unknown', truncationMaxLength: trunc?.max_length ?? null };
    // Find where the content sits inside the full encoding, to truncate the way HF does (content first,
    // specials kept) for any template post-processor.
    const probe = 'a b';
    const full = this.tok.encode(probe).ids;
    const content = this.tok.encode(probe, { add_special_tokens: false }).ids;
    let at = -1;
    for (let i = 0; i + content.length <= full.length && at < 0; i++) {
      if (content.every((id, j) => full[i + j] === id)) at = i;
    }
    if (at < 0 || content.length === 0)
      throw new ModelDirError(`tokenizer file ${file}: cannot locate the text inside its special-token template`);
    this.prefixSpecials = at;
    this.suffixSpecials = full.length - at - content.length;
  }

  static load(file: string): TextTokenizer {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ModelDirError(`tokenizer file ${file} is not valid JSON (${(err as Error).message}) — corrupt or truncated download?`);
    }
    if (!json || typeof json !== 'object' || !json.model)
      throw new ModelDirError(`tokenizer file ${file} has no "model" section — not a Hugging Face tokenizer.json`);
    return new TextTokenizer(file, json);
  }

  /**
   * Token ids with special tokens, truncated to `maxLength` like HF truncation (longest-first, right):
   * the content is cut, the leading and trailing special tokens stay.
   */
  encode(text: string, maxLength: number): number[] {
    const ids = this.tok.encode(boundedText(text, maxLength)).ids;
    if (ids.length <= maxLength) return ids;
    const keep = Math.max(0, maxLength - this.suffixSpecials);
    const out = ids.slice(0, keep);
    for (let i = ids.length - this.suffixSpecials; i < ids.length; i++) out.push(ids[i]);
    return out;
  }

  /** Tokens (strings) without truncation, for diagnostics. */
  tokens(text: string): string[] {
    return this.tok.encode(text).tokens;
  }
}

/** No vocabulary piece is longer than this many UTF-16 units, so the first `maxLength` tokens lie inside the cut. */
const MAX_CHARS_PER_TOKEN = 64;

/**
 * The text cut to what `maxLength` tokens can cover, at a whitespace boundary. Why: the Unigram model of
 * @huggingface/tokenizers spreads every piece of a pre-token into one array (`push(...pieces)`), which
 * overflows the stack on a megabyte-long line (e5's Metaspace pre-tokenizer keeps a line as one pre-token).
 * Tokens past `maxLength` are dropped anyway, so the cut changes no id that is kept.
 */
export function boundedText(text: string, maxLength: number): string {
  const limit = Math.max(1, maxLength) * MAX_CHARS_PER_TOKEN;
  if (text.length <= limit) return text;
  const space = text.lastIndexOf(' ', limit);
  let end = space > limit / 2 ? space : limit;
  // Never split a surrogate pair.
  if (end > 0 && text.charCodeAt(end - 1) >= 0xd800 && text.charCodeAt(end - 1) <= 0xdbff) end--;
  return text.slice(0, end);
}
