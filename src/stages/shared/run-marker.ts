/**
 * The run marker (docs/cluster-files.md#the-run-marker): the CLI writes `<results>/runs/<run>.json` — the run key
 * and digests of the config and of each selected dataset's file listing — before it starts a run, and passes its
 * path in the run options. Every stage activity reads it on its worker and lists the datasets itself: a worker that
 * cannot read the marker (another results dir, another mount) or sees other listings fails on that worker only
 * (a WorkerSetupError: other workers take the task), with one line naming the path.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { resolvePath, resultDirs } from '../../config/load';
import type { Config } from '../../config/schema';
import { writeJsonAtomic } from '../../io/jsonl';
import { WorkerSetupError } from '../../util/worker-setup-error';
import type { RunOptions } from './types';

export interface RunMarker {
  run: string;
  config_sha256: string;
  /** Per selected dataset: sha256 of its listing (`name size` of each file, one level), or `missing`. */
  datasets: Record<string, string>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** `name size` of a file, or of every file of a folder (one level); names only, so mounts at other paths compare equal. */
function listing(target: string): string {
  const st = statSync(target, { throwIfNoEntry: false });
  if (!st) return 'missing';
  if (!st.isDirectory()) return sha256(`${path.basename(target)} ${st.size}`);
  const rows = readdirSync(target)
    .sort()
    .flatMap((name) => {
      const f = statSync(path.join(target, name), { throwIfNoEntry: false });
      return f?.isFile() ? [`${name} ${f.size}`] : [];
    });
  return sha256(rows.join('\n'));
}

export function runMarkerPath(config: Config, run: string): string {
  return path.join(resultDirs(config).root, 'runs', `${run}.json`);
}

/** The marker as this process sees the run: what the client writes and every worker recomputes. */
export function runMarker(config: Config, options: RunOptions, run: string): RunMarker {
  const { temporal: _where, ...what } = config;
  const keys = options.datasets?.length ? options.datasets : Object.keys(config.datasets);
  const datasets: Record<string, string> = {};
  for (const key of keys) datasets[key] = config.datasets[key] ? listing(resolvePath(config.datasets[key].path)) : 'undeclared';
  return { run, config_sha256: sha256(stableJson(what)), datasets };
}

/** The client's side: writes the marker and returns the options that carry its path to every activity. */
export function writeRunMarker(config: Config, options: RunOptions, run: string): RunOptions {
  const file = runMarkerPath(config, run);
  try {
    writeJsonAtomic(file, runMarker(config, options, run));
  } catch {
    return options; // a results dir that cannot be written (a file, no permission): the stage says so in one line
  }
  return { ...options, runMarker: file };
}

/** A worker's side: throws a WorkerSetupError naming the path when this worker does not see the client's files. */
export function checkRunMarker(config: Config, options: RunOptions, run: string): void {
  const file = options.runMarker;
  if (!file) return; // started without the CLI (a test, a notebook): nothing to compare with
  const fix = 'mount the results dir and datasets at the same paths as on the client (docs/cluster-files.md)';
  let written: RunMarker;
  try {
    written = JSON.parse(readFileSync(file, 'utf8')) as RunMarker;
  } catch {
    throw new WorkerSetupError(`run marker ${file} is not readable on this worker`, fix);
  }
  const here = runMarker(config, options, run);
  if (written.run !== here.run || written.config_sha256 !== here.config_sha256)
    throw new WorkerSetupError(`run marker ${file} is another run's (${written.run}, not ${here.run})`, fix);
  for (const [key, digest] of Object.entries(here.datasets)) {
    if (written.datasets[key] !== digest) {
      const where = config.datasets[key] ? resolvePath(config.datasets[key].path) : key;
      throw new WorkerSetupError(`dataset ${key} at ${where} lists other files on this worker than the run marker ${file} records`, fix);
    }
  }
}
