/** The probe client an arm's effective config asks for: the local GGUF model or the OpenAI-compatible endpoint's `/v1/completions`. */
import { existsSync } from 'node:fs';
import { resolvePath } from '../../config/load';
import type { Config } from '../../config/schema';
import { WorkerSetupError } from '../../util/worker-setup-error';
import type { ProbeClient } from './client';
import { HttpProbeClient } from './http-client';
import { LocalProbeClient } from './local-client';

export async function openProbeClient(config: Config, model: string, env: NodeJS.ProcessEnv = process.env): Promise<ProbeClient> {
  const inf = config.infer;
  if (inf.backend === 'openai') {
    const keyEnv = inf.openai.api_key_env;
    const apiKey = keyEnv ? (env[keyEnv] ?? null) : null;
    if (keyEnv && !apiKey)
      throw new WorkerSetupError(`probe: ${keyEnv} is not set on this worker`, `export ${keyEnv}=… before starting it`);
    return new HttpProbeClient({
      baseUrl: inf.openai.base_url,
      model,
      apiKey,
      timeoutMs: inf.openai.timeout_s * 1000,
      maxRetries: inf.openai.max_retries,
    });
  }
  const modelPath = resolvePath(inf.local.model_path);
  if (!existsSync(modelPath))
    throw new WorkerSetupError(
      `GGUF model not found: ${modelPath}`,
      'put it on this worker (infer.local.model_path; `npm run setup` installs the default)',
    );
  return LocalProbeClient.create({
    modelPath,
    model,
    contextSize: inf.local.context_size,
    threads: inf.local.threads,
    gpu: inf.local.gpu ? 'auto' : false,
  });
}
