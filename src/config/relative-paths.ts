/**
 * Relative paths written in a config file resolve against the folder of that file (docs/cluster-files.md): the
 * loading process makes them absolute once, so the config that travels to every worker names the same files
 * whatever each worker's checkout or current directory. Paths the file does not write (the schema's defaults,
 * such as `models/multilingual-e5-small`) keep resolving against the project root.
 */
import path from 'node:path';

type Raw = Record<string, unknown>;

/** The path keys of a config, as key paths; `*` stands for every key of a mapping or item of a list. */
const PATH_KEYS: readonly (readonly string[])[] = [
  ['paths', 'results_dir'],
  ['data', 'openiti_root'],
  ['data', 'openiti_metadata'],
  ['datasets', '*', 'path'],
  ['corpus', 'source', 'path'],
  ['retrieval', 'rerank', 'model_dir'],
  ['rag', 'embedding', 'model_dir'],
  ['infer', 'local', 'model_path'],
  ['temporal', 'db_file'],
  ['study', 'arms', '*', 'corpus', 'source', 'path'],
  ['study', 'arms', '*', 'retrieval', 'rerank', 'model_dir'],
  ['study', 'arms', '*', 'infer', 'local', 'model_path'],
];

function rebaseAt(node: unknown, keys: readonly string[], dir: string): void {
  if (!node || typeof node !== 'object') return;
  const [key, ...rest] = keys;
  const o = node as Raw;
  const children = key === '*' ? Object.keys(o) : [key];
  for (const k of children) {
    if (rest.length > 0) rebaseAt(o[k], rest, dir);
    else if (typeof o[k] === 'string' && o[k] !== '' && !path.isAbsolute(o[k])) o[k] = path.resolve(dir, o[k]);
  }
}

/** A copy of the raw config (as read from YAML) with every relative path it writes made absolute against `dir`. */
export function rebasePaths(raw: unknown, dir: string): unknown {
  if (!raw || typeof raw !== 'object') return raw;
  const copy = structuredClone(raw) as Raw;
  for (const keys of PATH_KEYS) rebaseAt(copy, keys, dir);
  return copy;
}
