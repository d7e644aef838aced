import path from 'node:path';
import type { Config } from '../../src/config/schema';

/** The configured model's name, as the design document's files record it. */
export function configuredModel(config: Config): string {
  return config.infer.backend !== 'local' ? config.infer.openai.model : path.basename(config.infer.local.model_path, '.gguf');
}
