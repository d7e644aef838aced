/** The LLM backend a config (or an arm's effective config) asks for, and the model name the outputs record. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { resolvePath } from '../../config/load';
import type { Config } from '../../config/schema';
import type { BackendConfig } from '../../llm/index';
import { resolveDecoding, type ResolvedDecoding } from '../../llm/decoding';
import { WorkerSetupError } from '../../util/worker-setup-error';
import { configuredServer } from '../../llm/servers/kinds';

export function backendConfig(config: Config): BackendConfig {
  const inf = config.infer;
  if (inf.backend !== 'local') {
    return {
      type: 'openai',
      baseUrl: inf.openai.base_url,
      model: inf.openai.model,
      apiKeyEnv: inf.openai.api_key_env,
      temperature: inf.temperature,
      maxTokens: inf.openai.max_tokens,
      concurrency: inf.openai.concurrency,
      // A config from before the key (a running workflow's input) keeps the fixed cap it was written for.
      adaptive: inf.openai.adaptive_concurrency ?? false,
      timeoutMs: inf.openai.timeout_s * 1000,
      retry: { maxRetries: inf.openai.max_retries },
      ...(inf.decoding ? { decoding: armRequestDecoding(config) } : {}),
      ...(inf.openai.server && inf.openai.server !== 'auto' ? { server: configuredServer(inf.openai.server) } : {}),
    };
  }
  const modelPath = resolvePath(inf.local.model_path);
  // Missing on this worker only, maybe: another worker polling the queue may have it (activities/failure-kind.ts).
  if (!existsSync(modelPath))
    throw new WorkerSetupError(
      `GGUF model not found: ${modelPath}`,
      'put it on this worker (infer.local.model_path; `npm run setup` installs the default)',
    );
  return {
    type: 'llama',
    modelPath,
    threads: inf.local.threads,
    contextSize: inf.local.context_size,
    maxTokens: inf.local.max_tokens,
    gpu: inf.local.gpu ? 'auto' : false,
    ...(inf.decoding ? { decoding: armRequestDecoding(config) } : {}),
  };
}

/** The decoding an arm's requests are sent with (`infer.decoding` over `infer.temperature` and the backend's max_tokens). */
export function armRequestDecoding(config: Config): ResolvedDecoding {
  const inf = config.infer;
  const maxTokens = inf.backend !== 'local' ? inf.openai.max_tokens : inf.local.max_tokens;
  return resolveDecoding(inf.decoding, { temperature: inf.temperature, maxTokens });
}

/** The model name as the analysis records it: the endpoint's model id, or the GGUF file's name. */
export function modelName(config: Config): string {
  return config.infer.backend !== 'local' ? config.infer.openai.model : path.basename(config.infer.local.model_path, '.gguf');
}
