/**
 * `study.prompts.<name>.system_file` / `user_file` (docs/prompts.md#templates): read at config loading, against
 * the config file's folder, into `system` / `user`, so every worker renders the same text without the file.
 * The file's key is then dropped (the text replaces it), so the resolved config parses again as it is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './schema';

/** Fill each template's `system` / `user` from its file; one problem line per file that cannot be read. */
export function readPromptFiles(config: Config, configFile: string): string[] {
  const problems: string[] = [];
  for (const [name, t] of Object.entries(config.study?.prompts ?? {})) {
    for (const part of ['system', 'user'] as const) {
      const file = t[`${part}_file`];
      if (file === undefined) continue;
      const abs = path.resolve(path.dirname(configFile), file);
      try {
        t[part] = readFileSync(abs, 'utf8');
        delete t[`${part}_file`];
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
        problems.push(`study.prompts.${name}.${part}_file: cannot read ${abs} (${code})`);
      }
    }
  }
  return problems;
}
