/**
 * The simulated box's tokenizer (test/helpers/sim-llm-server.ts): a real Hugging Face tokenizer (multilingual
 * E5's SentencePiece, which cuts Arabic as an LLM's vocabulary does, in pieces of a few characters) over a
 * ChatML chat template, the template Qwen models serve with. The box counts a request's prompt tokens with it
 * and answers `/tokenize` with it, as vLLM counts `usage.prompt_tokens` and its `/tokenize` with the model's own.
 */
import path from 'node:path';
import { TextTokenizer } from '../../src/embed/tokenizer';
import { REPO_ROOT } from './shared-data';

export const SIM_TOKENIZER_FILE = path.join(REPO_ROOT, 'models', 'multilingual-e5-small', 'tokenizer.json');

/** ChatML: each message framed by <|im_start|>role … <|im_end|>, then the assistant's turn opened. */
export function chatTemplate(messages: readonly { role: string; content: string }[]): string {
  return messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
}

export interface SimTokenizer {
  /** Token ids of a text as the server's tokenizer cuts it. */
  ids(text: string): number[];
}

export function loadSimTokenizer(file = SIM_TOKENIZER_FILE): SimTokenizer {
  const tok = TextTokenizer.load(file);
  return { ids: (text) => tok.encode(text, Number.MAX_SAFE_INTEGER) };
}
