/**
 * Config keys that were renamed when the study took one vocabulary (docs/glossary.md): a config still using one
 * fails with one line naming the file, the old key path and the new one, before any other check — so an old
 * config is never half-read. docs/configuration.md#renamed-keys lists the same table.
 * (vocab-codemod: keep — this table names the old keys on purpose.)
 */
import path from 'node:path';

export interface RenamedKey {
  /** The old key path, `*` standing for any list index. */
  from: string;
  /** Where the setting lives now; `null`: it is gone, and `note` says why. */
  to: string | null;
  note?: string;
}

export const RENAMED_KEYS: readonly RenamedKey[] = [
  { from: 'phase5.corpus', to: 'corpus' },
  { from: 'phase5.index', to: 'index' },
  { from: 'phase5.retrieval', to: 'retrieval' },
  { from: 'phase5.export', to: 'export' },
  { from: 'phase5.analyze_errors', to: 'analysis.analyze_errors' },
  {
    from: 'phase5.max_retries',
    to: null,
    note: 'it set nothing; activity retries are temporal.retry, LLM request retries infer.openai.max_retries',
  },
  { from: 'infer.conditions', to: 'infer.arms' },
  { from: 'study.arms.*.infer.conditions', to: 'study.arms.*.infer.arms' },
];

/** A `phase5:` block that holds none of the keys above (e.g. `phase5: {}`) is still the old block. */
const DISSOLVED_BLOCK = 'phase5';

/** The renamed keys a raw (parsed YAML) config uses, each as `key <old> was renamed to <new>`, in table order. */
export function renamedKeyProblems(raw: unknown): string[] {
  const problems: string[] = [];
  for (const rule of RENAMED_KEYS) {
    for (const { at, indices } of present(raw, rule.from.split('.'))) {
      const to = rule.to?.replace(/\*/g, () => String(indices.shift()));
      problems.push(to ? `key ${at} was renamed to ${to}` : `key ${at} was removed: ${rule.note}`);
    }
  }
  if (!problems.length && isObject(raw) && DISSOLVED_BLOCK in raw)
    problems.push(
      `key ${DISSOLVED_BLOCK} was dissolved: its blocks are top-level (corpus, index, retrieval, export; analyze_errors under analysis)`,
    );
  return problems;
}

/** Every concrete path matching `keys` (`*` = each index of a list) that exists in `raw`. */
function present(raw: unknown, keys: string[], at: string[] = [], indices: number[] = []): { at: string; indices: number[] }[] {
  if (!keys.length) return [{ at: at.join('.'), indices }];
  const [k, ...rest] = keys;
  if (k === '*') return Array.isArray(raw) ? raw.flatMap((item, i) => present(item, rest, [...at, String(i)], [...indices, i])) : [];
  return isObject(raw) && k in raw ? present(raw[k], rest, [...at, k], indices) : [];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The config file as a user typed it: relative to the current folder when inside it. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}
