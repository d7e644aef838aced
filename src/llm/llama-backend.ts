/**
 * Local GGUF backend through node-llama-cpp (llama.cpp bindings). One model load per backend, reused for
 * every call; the chat template comes from the model's GGUF metadata (node-llama-cpp picks the matching
 * chat wrapper). Greedy decoding (temperature 0) unless `decoding` says otherwise: it honours temperature, top_p,
 * seed, max_tokens and stop (a JSON `response_format` and `extra_body` are HTTP-only; config loading refuses them
 * here, src/config/study.ts). It reports no finish reason or served model: an answer cut at max_tokens is kept as
 * it is. `sequences` > 1 runs that many generations in parallel
 * in one context (useful on GPU; on a 2-core CPU 1 is best).
 *
 * Create with `await LlamaCppBackend.create({...})` (loading is async); call `close()` to free the model.
 */
import path from 'node:path';
import type { ChatHistoryItem, Llama, LlamaChatSession, LlamaContext, LlamaModel } from 'node-llama-cpp';
import { childLogger } from '../util/log';
import { WorkerSetupError } from '../util/worker-setup-error';
import type { ResolvedDecoding } from './decoding';
import { Semaphore } from './pool';
import { LlmError, type ChatMessage, type CompletionOptions, type CompletionResult, type LlmBackend } from './types';

export interface LlamaBackendOptions {
  /** Path to a .gguf file. */
  modelPath: string;
  /** Name recorded in corrections.jsonl (default: the file name without `.gguf`). */
  modelName?: string;
  /** CPU threads (default: node-llama-cpp's choice, i.e. all cores). */
  threads?: number;
  /** Context size in tokens per sequence (default 2048: p5v1 prompts are ~150–250 tokens + the answer). */
  contextSize?: number;
  /** Default max tokens per answer (default 256). */
  maxTokens?: number;
  /** Parallel sequences in the context (default 1). */
  sequences?: number;
  /** `false` (CPU, default) or `'auto'` / `'cuda'` / `'vulkan'` / `'metal'`. Prebuilt binaries only (no compiling). */
  gpu?: false | 'auto' | 'cuda' | 'vulkan' | 'metal';
  /** Per-call timeout in ms (default 300 000). */
  timeoutMs?: number;
  /** Temperature, top_p, seed, max_tokens (over `maxTokens`) and stop sequences (./decoding); absent = greedy. */
  decoding?: ResolvedDecoding;
}

const log = childLogger('llm-llama');

// One llama.cpp runtime per GPU setting per process (loading the native binding is the slow part).
const runtimes = new Map<string, Promise<Llama>>();
async function getRuntime(gpu: LlamaBackendOptions['gpu']): Promise<Llama> {
  const key = String(gpu ?? false);
  let p = runtimes.get(key);
  if (!p) {
    p = (async () => {
      const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
      return getLlama({
        gpu: gpu ?? false,
        build: 'never',
        logLevel: LlamaLogLevel.warn,
        logger: (level, message) => {
          const text = message.trim();
          if (text) log.warn({ llamaLevel: level }, text);
        },
      });
    })();
    p.catch(() => runtimes.delete(key));
    runtimes.set(key, p);
  }
  return p;
}

export class LlamaCppBackend implements LlmBackend {
  readonly id: string;
  readonly model: string;
  readonly concurrency: number;
  private readonly idle: LlamaChatSession[];
  /** The chat template wrapper node-llama-cpp resolved from the GGUF metadata (same for all sessions). */
  private readonly chatWrapper: LlamaChatSession['chatWrapper'];
  private readonly slots: Semaphore;
  private closed = false;

  private constructor(
    private readonly opts: LlamaBackendOptions,
    private readonly llamaModel: LlamaModel,
    private readonly context: LlamaContext,
    sessions: LlamaChatSession[],
  ) {
    this.model = opts.modelName ?? path.basename(opts.modelPath).replace(/\.gguf$/i, '');
    this.id = `llama.cpp:${opts.modelPath}`;
    this.idle = sessions;
    this.chatWrapper = sessions[0].chatWrapper;
    this.concurrency = sessions.length;
    this.slots = new Semaphore(sessions.length);
  }

  static async create(opts: LlamaBackendOptions): Promise<LlamaCppBackend> {
    const sequences = opts.sequences ?? 1;
    if (!(Number.isInteger(sequences) && sequences >= 1))
      throw new Error(`llama backend: sequences must be an integer >= 1, got ${opts.sequences}`);
    const { existsSync } = await import('node:fs');
    if (!existsSync(opts.modelPath)) {
      throw new WorkerSetupError(
        `llama backend: model file not found: ${opts.modelPath}`,
        'run `npm run setup` on this worker or set the model path (infer.local.model_path, or `phase5 worker --local-model-path`)',
      );
    }
    const { LlamaChatSession: Session } = await import('node-llama-cpp');
    const llama = await getRuntime(opts.gpu);
    const model = await llama.loadModel({ modelPath: opts.modelPath });
    let context: LlamaContext;
    try {
      context = await model.createContext({
        contextSize: opts.contextSize ?? 2048,
        sequences,
        ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
      });
    } catch (err) {
      await model.dispose();
      throw err;
    }
    const sessions = Array.from({ length: sequences }, () => new Session({ contextSequence: context.getSequence() }));
    log.info({ model: opts.modelPath, contextSize: context.contextSize, sequences, gpu: llama.gpu }, 'local GGUF model loaded');
    return new LlamaCppBackend(opts, model, context, sessions);
  }

  async complete(messages: ChatMessage[], opts: CompletionOptions = {}): Promise<CompletionResult> {
    if (this.closed) throw new LlmError('local_error', 'backend is closed');
    const last = messages[messages.length - 1];
    if (!last || last.role !== 'user') throw new LlmError('local_error', 'the last message must be a user message');
    const history: ChatHistoryItem[] = messages
      .slice(0, -1)
      .map((m) =>
        m.role === 'system'
          ? { type: 'system', text: m.content }
          : m.role === 'user'
            ? { type: 'user', text: m.content }
            : { type: 'model', response: [m.content] },
      );

    const release = await this.slots.acquire();
    const session = this.idle.pop()!;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 300_000);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    try {
      // Every call starts from an empty KV cache. Reusing the cached prefix of the previous call is faster,
      // but we measured it changing greedy outputs (same prompt: different answer on the 2nd call), which
      // would make a sample's correction depend on which sample ran before it — and break resume parity.
      await session.sequence.clearHistory();
      session.setChatHistory(history);
      const promptTokens = this.countPromptTokens(messages);
      const meterBefore = session.sequence.tokenMeter.getState();
      const started = performance.now();
      let firstTokenAt: number | null = null;
      const d = this.opts.decoding;
      const res = await session.promptWithMeta(last.content, {
        maxTokens: opts.maxTokens ?? d?.max_tokens ?? this.opts.maxTokens ?? 256,
        temperature: d?.temperature ?? 0,
        ...(d?.top_p != null ? { topP: d.top_p } : {}),
        ...(d?.seed != null ? { seed: d.seed } : {}),
        ...(d?.stop ? { customStopTriggers: d.stop } : {}),
        signal,
        onToken: () => {
          firstTokenAt ??= performance.now();
        },
      });
      const ended = performance.now();
      const used = session.sequence.tokenMeter.diff(meterBefore);
      return {
        text: res.responseText,
        promptTokens,
        completionTokens: used.usedOutputTokens,
        latencyMs: Math.round(ended - started),
        attempts: 1,
        firstTokenMs: Math.round((firstTokenAt ?? ended) - started),
      };
    } catch (err) {
      if (opts.signal?.aborted) throw new LlmError('aborted', 'generation aborted by the caller');
      if (timeout.aborted) throw new LlmError('timeout', `generation took longer than ${this.opts.timeoutMs ?? 300_000} ms`);
      throw new LlmError('local_error', err instanceof Error ? err.message : String(err));
    } finally {
      this.idle.push(session);
      release();
    }
  }

  /** Tokens of the whole templated prompt (system + user + the assistant header), as the model sees it. */
  countPromptTokens(messages: ChatMessage[]): number {
    const chatHistory: ChatHistoryItem[] = messages.map((m) =>
      m.role === 'system'
        ? { type: 'system', text: m.content }
        : m.role === 'user'
          ? { type: 'user', text: m.content }
          : { type: 'model', response: [m.content] },
    );
    chatHistory.push({ type: 'model', response: [] });
    return this.chatWrapper.generateContextState({ chatHistory }).contextText.tokenize(this.llamaModel.tokenizer).length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context.dispose();
    await this.llamaModel.dispose();
  }
}
