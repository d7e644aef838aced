/**
 * Load, validate and resolve a config file. Errors name the file, the key path, and expected vs got.
 * Relative paths a config file writes resolve against that file's folder (./relative-paths.ts); the schema's
 * defaults and paths given elsewhere (CLI flags, configs built in code) against the project root (the folder
 * holding package.json), so the same config works whatever the current directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML, { YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { ConfigSchema, type Config } from './schema';
import { readPromptFiles } from './prompt-files';
import { rebasePaths } from './relative-paths';
import { displayPath, renamedKeyProblems } from './renamed-keys';
import { studyProblems } from './study';
import { applyTemporalProfile, TemporalProfileError } from '../temporal/connection-options';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEFAULT_CONFIG = path.join(PROJECT_ROOT, 'configs', 'config.yaml');

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`invalid config ${file}:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** A config that uses a renamed key: one line, `<file>: key <old> was renamed to <new>` (several joined by "; "). */
export class RenamedKeyError extends ConfigError {
  constructor(file: string, problems: string[]) {
    super(file, problems);
    this.name = 'RenamedKeyError';
    this.message = `${displayPath(file)}: ${problems.join('; ')}`;
  }
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function valueAt(raw: unknown, keyPath: PropertyKey[]): unknown {
  let cur: unknown = raw;
  for (const k of keyPath) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

/** One line per zod issue: `key.path: expected …, got …`. */
export function formatIssues(error: z.ZodError, raw: unknown): string[] {
  return error.issues.map((issue) => {
    const keyPath = issue.path.map(String).join('.') || '(top level)';
    if (issue.code === 'unrecognized_keys') {
      const where = issue.path.length ? `${keyPath}: ` : '';
      return `${where}unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (not part of the schema; check the spelling)`;
    }
    const got = describeValue(valueAt(raw, issue.path));
    return `${keyPath}: ${issue.message} (got ${got})`;
  });
}

export interface LoadOptions {
  /** Environment to read overrides from (tests pass their own). */
  env?: NodeJS.ProcessEnv;
}

export interface LoadedConfig {
  config: Config;
  file: string;
}

/** Parse and validate a config object (already read from YAML). */
export function parseConfig(raw: unknown, file: string, opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const renamed = renamedKeyProblems(raw);
  if (renamed.length) throw new RenamedKeyError(file, renamed);
  const result = ConfigSchema.safeParse(raw ?? {});
  if (!result.success) throw new ConfigError(file, formatIssues(result.error, raw));
  const config = result.data;
  // Environment overrides documented in the README (CLI flags override these in turn).
  if (env.OPENITI_ROOT) config.data.openiti_root = env.OPENITI_ROOT;
  // Temporal's own client configuration (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TOML profiles) over the `temporal` block.
  try {
    applyTemporalProfile(config.temporal, env);
  } catch (err) {
    if (err instanceof TemporalProfileError) throw new ConfigError(env.TEMPORAL_CONFIG_FILE ?? 'Temporal client config', [err.message]);
    throw err;
  }
  const unreadable = readPromptFiles(config, file);
  if (unreadable.length) throw new ConfigError(file, unreadable);
  checkConsistency(config, file);
  return config;
}

/** Rules that span keys (zod checks one key at a time). */
function checkConsistency(config: Config, file: string): void {
  const problems: string[] = [];
  const c = config.corpus;
  if (c.min_char_len > c.max_char_len)
    problems.push(`corpus.min_char_len: must be ≤ max_char_len (${c.max_char_len}), got ${c.min_char_len}`);
  const total = c.eras.reduce((s, e) => s + e.fraction, 0);
  if (Math.abs(total - 1) > 1e-6) problems.push(`corpus.eras: fractions must sum to 1, got ${Number(total.toFixed(6))}`);
  c.eras.forEach((e, i) => {
    if (e.from >= e.to) problems.push(`corpus.eras.${i}: from (${e.from}) must be < to (${e.to})`);
  });
  problems.push(...studyProblems(config));
  if (problems.length) throw new ConfigError(file, problems);
}

export function loadConfig(file = DEFAULT_CONFIG, opts: LoadOptions = {}): LoadedConfig {
  const abs = path.resolve(file);
  if (!existsSync(abs)) throw new ConfigError(abs, [`file not found`]);
  let raw: unknown;
  try {
    raw = YAML.parse(readFileSync(abs, 'utf8'));
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const pos = err.linePos?.[0];
      throw new ConfigError(abs, [
        `YAML syntax error${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${err.message.split('\n')[0]}`,
      ]);
    }
    throw err;
  }
  return { config: parseConfig(rebasePaths(raw, path.dirname(abs)), abs, opts), file: abs };
}

/** Resolve a path from a config against the project root. */
export function resolvePath(p: string): string {
  return path.isAbsolute(p) ? p : path.resolve(PROJECT_ROOT, p);
}

/** The results root and its folders by concern (docs/outputs.md#layout). */
export interface ResultDirs {
  root: string;
  /** `arms/<arm>/`: every arm's corrections, the default rag and zero_shot arms' too. */
  arms: string;
  /** `exports/<fingerprint>/`: one export per retrieval settings. */
  exports: string;
  /** `corpora/<fingerprint>/`: one corpus (and its indexes) per corpus settings. */
  corpora: string;
  /** `witness/<fingerprint>/`: one witness index per witness settings. */
  witness: string;
}

export function resultDirs(config: Config): ResultDirs {
  const root = resolvePath(config.paths.results_dir);
  const at = (name: string) => path.join(root, name);
  return { root, arms: at('arms'), exports: at('exports'), corpora: at('corpora'), witness: at('witness') };
}

export function metadataPath(config: Config): string {
  return config.data.openiti_metadata
    ? resolvePath(config.data.openiti_metadata)
    : path.join(resolvePath(config.data.openiti_root), 'metadata', 'OpenITI_metadata_2023-1-8.csv');
}
