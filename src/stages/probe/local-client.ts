/**
 * The probe on the local GGUF model (node-llama-cpp): a raw `LlamaCompletion` for the continuation and
 * `controlledEvaluate` with the full next-token logits for the likelihood test, so Min-K%++ is exact here.
 * Every call starts from an empty context, as in src/llm/llama-backend.ts.
 */
import type { LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import type { Continuation, ProbeClient } from './client';
import type { TokenLogprob } from './likelihood';

export interface LocalProbeOptions {
  modelPath: string;
  model: string;
  contextSize: number;
  threads?: number;
  gpu: false | 'auto';
}

export class LocalProbeClient implements ProbeClient {
  private constructor(
    readonly model: string,
    private readonly llamaModel: LlamaModel,
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
  ) {}

  static async create(o: LocalProbeOptions): Promise<LocalProbeClient> {
    const { getLlama } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: o.gpu, build: 'never' });
    const model = await llama.loadModel({ modelPath: o.modelPath });
    const context = await model.createContext({ contextSize: o.contextSize, ...(o.threads !== undefined ? { threads: o.threads } : {}) });
    return new LocalProbeClient(o.model, model, context, context.getSequence());
  }

  async continueText(prompt: string, maxTokens: number, signal?: AbortSignal): Promise<Continuation> {
    const { LlamaCompletion } = await import('node-llama-cpp');
    await this.sequence.clearHistory();
    const completion = new LlamaCompletion({ contextSequence: this.sequence });
    const promptTokens = this.withBos(this.llamaModel.tokenize(prompt)).length;
    const meter = this.sequence.tokenMeter.getState();
    const res = await completion.generateCompletionWithMeta(prompt, { maxTokens, temperature: 0, ...(signal ? { signal } : {}) });
    completion.dispose({ disposeSequence: false });
    return { text: res.response, promptTokens, completionTokens: this.sequence.tokenMeter.diff(meter).usedOutputTokens };
  }

  async likelihood(text: string): Promise<{ tokens: TokenLogprob[]; exact: boolean }> {
    await this.sequence.clearHistory();
    const input = this.withBos(this.llamaModel.tokenize(text));
    const items = input.map((t, i) => (i < input.length - 1 ? ([t, { generateNext: { logits: true } }] as const) : t));
    const out = await this.sequence.controlledEvaluate(items as Parameters<LlamaContextSequence['controlledEvaluate']>[0]);
    const tokens: TokenLogprob[] = [];
    for (let i = 0; i < input.length - 1; i++) {
      const logits = out[i]?.next.logits;
      if (logits) tokens.push(tokenLogprob(logits, input[i + 1]));
    }
    await this.sequence.clearHistory();
    return { tokens, exact: true };
  }

  countTokens(text: string): number {
    return this.llamaModel.tokenize(text).length;
  }

  private withBos(tokens: Token[]): Token[] {
    const bos = this.llamaModel.tokens.bos;
    return bos !== null && this.llamaModel.tokens.shouldPrependBosToken && tokens[0] !== bos ? [bos, ...tokens] : tokens;
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.llamaModel.dispose();
  }
}

/** log p(next) from a position's raw logits, with the whole vocabulary's log-probabilities as the distribution. */
function tokenLogprob(logits: Map<Token, number>, next: Token): TokenLogprob {
  const values = Float64Array.from(logits.values());
  let max = -Infinity;
  for (const v of values) max = Math.max(max, v);
  let z = 0;
  for (const v of values) z += Math.exp(v - max);
  const logZ = max + Math.log(z);
  for (let i = 0; i < values.length; i++) values[i] -= logZ;
  return { logprob: (logits.get(next) ?? -Infinity) - logZ, distribution: values };
}
