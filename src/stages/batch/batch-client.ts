/** The Files and Batches client of a config's `infer.openai` endpoint (the `openai` SDK; its key read from the named variable). */
import OpenAI from 'openai';
import type { Config } from '../../config/schema';
import { missingKeyError } from '../../util/worker-setup-error';

export function batchClient(config: Config, env: Record<string, string | undefined> = process.env): OpenAI {
  const o = config.infer.openai;
  const key = env[o.api_key_env];
  if (!key) throw missingKeyError(o.api_key_env);
  // No retries of its own: a create retried after a lost answer could make a second batch (the activity's retry finds the first).
  return new OpenAI({ baseURL: o.base_url, apiKey: key, maxRetries: 0, timeout: o.timeout_s * 1000 });
}

/** `infer.batch` with its defaults (a config from before the key has none). */
export function batchSettings(config: Config) {
  const b = config.infer.batch;
  return {
    limits: { maxLines: b?.max_lines ?? 50_000, maxBytes: b?.max_bytes ?? 200_000_000 },
    pollMs: (b?.poll_s ?? 30) * 1000,
    completionWindow: b?.completion_window ?? '24h',
  };
}
