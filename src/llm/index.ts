/**
 * LLM backends behind one interface, output cleaning, the correction runner and corrections import.
 *
 *   const backend = await createBackend({ type: 'openai', baseUrl, model, apiKeyEnv: 'OPENROUTER_API_KEY' });
 *   const summary = await runCorrections({ inputPath, outputPath, backend, prompt: 'rag' });
 *   await backend.close();
 */
import { OpenAiCompatibleBackend, type OpenAiBackendOptions } from './openai-backend';
import type { LlamaBackendOptions } from './llama-backend';
import type { LlmBackend } from './types';

export * from './types';
export { cleanOutput, type CleanOptions } from './clean';
export {
  applyGuard,
  trimOutput,
  fallbackReason,
  resolveGuard,
  GuardSettingsSchema,
  GuardOverrideSchema,
  GUARD_DEFAULTS,
  GUARD_REASONS,
  type GuardSettings,
  type GuardOverride,
  type GuardDecision,
  type GuardReason,
  type GuardResult,
  type TrimResult,
} from './guard';
export { runPool, Semaphore } from './pool';
export { DEFAULT_RETRY_POLICY, backoffDelay, parseRetryAfter, classifyStatus, type RetryPolicy } from './retry';
export { OpenAiCompatibleBackend, type OpenAiBackendOptions } from './openai-backend';
export type { LlamaBackendOptions } from './llama-backend';
export * from './records';
export * from './record-files';
export {
  runCorrections,
  RunCorrectionsError,
  LlmUnavailableError,
  type PromptKind,
  type RunCorrectionsOptions,
  type RunCorrectionsSummary,
} from './runner';

export type BackendConfig = ({ type: 'openai' } & OpenAiBackendOptions) | ({ type: 'llama' } & LlamaBackendOptions);

/** Build a backend from its config block. The local backend's module (native binding) is loaded only when used. */
export async function createBackend(cfg: BackendConfig): Promise<LlmBackend> {
  switch (cfg.type) {
    case 'openai': {
      const { type: _t, ...o } = cfg;
      return new OpenAiCompatibleBackend(o);
    }
    case 'llama': {
      const { type: _t, ...o } = cfg;
      const { LlamaCppBackend } = await import('./llama-backend');
      return LlamaCppBackend.create(o);
    }
    default:
      throw new Error(`unknown LLM backend type "${(cfg as { type: unknown }).type}" (expected "openai" or "llama")`);
  }
}
export { chatRequestBody, RequestShapeError } from './request-body';
export { readCompletion, type CompletionAnswer } from './completion';
export type { ServerInfo, ServerKind, ServerSetting } from './servers/kinds';
