/**
 * A worker's own LLM endpoint. On a cluster every GPU box runs its own vLLM / llama.cpp server, so a worker
 * may replace the config's `infer.openai.base_url` / `model` / `api_key_env` or `infer.local.model_path` for
 * the activities it runs (`phase5 worker --openai-base-url …`, or the PHASE5_* variables below). The override
 * lives in the worker process only: it is never part of a workflow's input or history, and an API key is never
 * passed at all — only the name of the environment variable that holds it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BackendConfig } from './index';
import { redactedUrl } from './openai-backend';

export interface EndpointOverride {
  /** Replaces `infer.openai.base_url` (OpenAI-compatible backend). */
  baseUrl?: string;
  /** Replaces `infer.openai.model`. */
  model?: string;
  /** Replaces `infer.openai.api_key_env`: the NAME of the variable holding the key. */
  apiKeyEnv?: string;
  /** Replaces `infer.local.model_path` (local GGUF backend). */
  modelPath?: string;
}

/** Environment variables a worker reads its override from (command-line flags win). */
export const ENDPOINT_ENV: Record<keyof EndpointOverride, string> = {
  baseUrl: 'PHASE5_OPENAI_BASE_URL',
  model: 'PHASE5_OPENAI_MODEL',
  apiKeyEnv: 'PHASE5_OPENAI_API_KEY_ENV',
  modelPath: 'PHASE5_LOCAL_MODEL_PATH',
};

export const ENDPOINT_FLAGS: Record<keyof EndpointOverride, string> = {
  baseUrl: '--openai-base-url',
  model: '--openai-model',
  apiKeyEnv: '--openai-api-key-env',
  modelPath: '--local-model-path',
};

export class EndpointOverrideError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EndpointOverrideError';
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Flags over environment; empty values count as unset. Throws EndpointOverrideError naming the flag and variable. */
export function endpointOverrideFrom(flags: EndpointOverride, env: Record<string, string | undefined> = process.env): EndpointOverride {
  const out: EndpointOverride = {};
  for (const key of Object.keys(ENDPOINT_ENV) as (keyof EndpointOverride)[]) {
    const value = (flags[key] || env[ENDPOINT_ENV[key]] || '').trim();
    if (value) out[key] = value;
  }
  const where = (key: keyof EndpointOverride) => `${ENDPOINT_FLAGS[key]} / ${ENDPOINT_ENV[key]}`;
  if (out.baseUrl && !/^https?:\/\/[^/]/.test(out.baseUrl))
    throw new EndpointOverrideError(`${where('baseUrl')}: "${out.baseUrl}" is not an http(s) URL`);
  if (out.apiKeyEnv && !ENV_NAME.test(out.apiKeyEnv)) {
    // Never echo the value: it may be the key itself, passed by mistake.
    throw new EndpointOverrideError(
      `${where('apiKeyEnv')} takes the NAME of the environment variable that holds the key (letters, digits, _), not the key`,
    );
  }
  if (out.modelPath) {
    out.modelPath = path.resolve(out.modelPath);
    if (!existsSync(out.modelPath)) throw new EndpointOverrideError(`${where('modelPath')}: GGUF model not found: ${out.modelPath}`);
  }
  return out;
}

/** The backend config with this worker's override applied (OpenAI settings to an OpenAI config, the model path to a local one). */
export function applyEndpointOverride(cfg: BackendConfig, o: EndpointOverride): BackendConfig {
  if (cfg.type === 'openai') {
    return {
      ...cfg,
      ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
      ...(o.model ? { model: o.model } : {}),
      ...(o.apiKeyEnv ? { apiKeyEnv: o.apiKeyEnv } : {}),
    };
  }
  if (!o.modelPath) return cfg;
  const { modelName: _configName, ...local } = cfg; // the recorded name follows the worker's file
  return { ...local, modelPath: o.modelPath };
}

/** One line for the worker's start-up log: which override is active, or null when none. */
export function describeEndpointOverride(o: EndpointOverride): string | null {
  const parts = [
    o.baseUrl && `base_url ${redactedUrl(o.baseUrl)}`,
    o.model && `model ${o.model}`,
    o.apiKeyEnv && `key from $${o.apiKeyEnv}`,
    o.modelPath && `local model ${o.modelPath}`,
  ].filter(Boolean);
  return parts.length
    ? `worker-local LLM endpoint: ${parts.join(', ')} (replaces the workflow config's for the infer activities this worker runs)`
    : null;
}
