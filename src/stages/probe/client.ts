/** What the probe asks of a model: a raw greedy continuation and, where the server gives them, the log-probabilities of a text. */
import type { TokenLogprob } from './likelihood';

export interface Continuation {
  text: string;
  promptTokens: number | null;
  completionTokens: number | null;
}

/** Two implementations: the local GGUF model (./local-client.ts) and an OpenAI-compatible `/v1/completions` endpoint (./http-client.ts). */
export interface ProbeClient {
  /** The model name the probe files and memorisation.json record (the arm's `model`). */
  readonly model: string;
  /** Greedy (temperature 0) continuation of `prompt`, raw text (no chat template), at most `maxTokens` tokens. */
  continueText(prompt: string, maxTokens: number, signal?: AbortSignal): Promise<Continuation>;
  /**
   * Each token's log-probability in `text` (all but a first token that nothing predicts) with the candidates at
   * its position; `{ skip }` says why this server gives none (the likelihood test is then left out, with that reason).
   */
  likelihood(text: string, signal?: AbortSignal): Promise<{ tokens: TokenLogprob[]; exact: boolean } | { skip: string }>;
  /** The tokens of `text` under the model's tokenizer, where the client has it (the local model). */
  countTokens?(text: string): number;
  close(): Promise<void>;
}
