/**
 * Run identity: workflow ids carry a hash of everything that determines a run's outputs, so a command whose
 * inputs differ from a finished run's is never answered with that run's result.
 *
 *   run key      = <run_name>-<hash8>               e.g. default-3fa2c91b
 *   study id     = phase5-<run key>                 (runWorkflowId)
 *   stage ids    = phase5-<run key>-<stage>         (stageWorkflowId; the study workflow computes its
 *                                                    children's ids from `input.run`, so passing the run key
 *                                                    as `run` keeps them in step with no workflow change)
 *
 * The hash covers the resolved config (minus `temporal`, which says where and how a run executes, not what
 * it produces, and minus `run_name`, already in the id), the CLI run options with their paths resolved, the
 * results dir, and the identity of the input files: every file of each selected dataset (path, size, mtime),
 * the `--baseline-dir` files likewise, and the sha256 of an `--import` file (its content is the input).
 * The OpenITI checkout is identified by its path only (hashing it would read gigabytes); the corpus and index
 * are outputs of build, checked by their own manifests. `--force` is not part of the hash: it re-runs the
 * same identity. Identical command → same id → attach to it or report it, as before.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { resolvePath, resultDirs } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { RunOptions } from '../../src/stages/shared/types';

/** `path size mtime` of a file, every file of a folder (one level), or `missing`. */
export function fileIdentity(target: string): string[] {
  const st = statSync(target, { throwIfNoEntry: false });
  if (!st) return [`${target} missing`];
  if (!st.isDirectory()) return [`${target} ${st.size} ${st.mtimeMs}`];
  return readdirSync(target)
    .sort()
    .flatMap((name) => {
      const f = statSync(path.join(target, name), { throwIfNoEntry: false });
      return f && f.isFile() ? [`${path.join(target, name)} ${f.size} ${f.mtimeMs}`] : [];
    });
}

function contentSha256(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return 'unreadable'; // the stage reports why; the id only has to differ from a readable file's
  }
}

/** Run options with every path made absolute (a relative path means the same file from any cwd). */
function resolvedOptions(options: RunOptions): RunOptions {
  const out: RunOptions = { ...options };
  for (const key of ['corpusPath', 'indexPath', 'baselineDir', 'importFile'] as const) {
    if (out[key]) out[key] = resolvePath(out[key]);
  }
  return out;
}

/** JSON with object keys sorted, so the hash does not depend on key order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Everything that determines the outputs, as one hashable value. */
export function identityInputs(config: Config, options: RunOptions): Record<string, unknown> {
  const { temporal: _where, run_name: _name, ...outputConfig } = config;
  const opts = resolvedOptions(options);
  const datasetKeys = options.datasets?.length ? options.datasets : Object.keys(config.datasets);
  const datasets = datasetKeys.map((key) => {
    const d = config.datasets[key];
    return { key, files: d ? fileIdentity(resolvePath(d.path)) : ['undeclared'] };
  });
  return {
    config: outputConfig,
    options: opts,
    resultsDir: resultDirs(config).root,
    datasets,
    phase2: opts.baselineDir ? fileIdentity(opts.baselineDir) : null,
    importSha256: opts.importFile ? contentSha256(opts.importFile) : null,
    ...(opts.batchIn ? { batchInSha256: opts.batchIn.map((f) => contentSha256(resolvePath(f))) } : {}),
  };
}

/** The first 8 hex digits of the identity hash. */
export function runIdentityHash(config: Config, options: RunOptions): string {
  return createHash('sha256')
    .update(stableJson(identityInputs(config, options)))
    .digest('hex')
    .slice(0, 8);
}

/** `<run_name>-<hash8>`: the `run` the CLI passes to workflows, from which every workflow id derives. */
export function runKey(config: Config, options: RunOptions): string {
  return `${config.run_name}-${runIdentityHash(config, options)}`;
}
