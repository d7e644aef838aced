import type { Config } from '../../src/config/schema';

/** Secret values present in the environment for this config (API keys), to keep out of logs and history. */
export function collectSecrets(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  const key = env[config.infer.openai.api_key_env];
  return key && key.length >= 4 ? [key] : [];
}
