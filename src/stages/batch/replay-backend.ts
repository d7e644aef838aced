/**
 * A backend that answers from a batch's output instead of a server: each prompt's answer as the batch gave it,
 * looked up by the prompt's messages (the request body held them), so the correction runner turns it into a
 * record exactly as it does a live answer (reasoning split, JSON field, `truncated`, guard, usage, served model).
 */
import { LlmError, type ChatMessage, type CompletionResult, type LlmBackend } from '../../llm/types';
import type { CompletionAnswer as ReadCompletion } from '../../llm/completion';
import { sha256Text } from '../../util/hash';

export function messagesKey(messages: unknown): string {
  return sha256Text(JSON.stringify(messages));
}

export class ReplayBackend implements LlmBackend {
  readonly concurrency = 1;
  private readonly answers = new Map<string, (ReadCompletion | LlmError)[]>();

  constructor(
    readonly id: string,
    readonly model: string,
  ) {}

  /** The answer to the request whose body held `messages` (answers to equal prompts are given in the order added). */
  add(messages: unknown, answer: ReadCompletion | LlmError): void {
    const key = messagesKey(messages);
    const list = this.answers.get(key) ?? [];
    list.push(answer);
    this.answers.set(key, list);
  }

  async complete(messages: ChatMessage[]): Promise<CompletionResult> {
    const answer = this.answers.get(messagesKey(messages))?.shift();
    if (!answer) throw new LlmError('unexpected', 'the batch output holds no answer to this prompt', null, 1);
    if (answer instanceof LlmError) throw answer;
    // A batch answer has no latency of its own: NaN is written as null (JSON), as the record schema allows.
    return { ...answer, latencyMs: Number.NaN, attempts: 1 };
  }

  async close(): Promise<void> {}
}
