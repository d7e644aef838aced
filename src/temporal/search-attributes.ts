/**
 * Searchable runs: the custom search attributes every phase5 workflow is started with, and the memo with a
 * summary of its config. The CLI sets them in the start options. Child workflows do not inherit them in the
 * TypeScript SDK (`startChild` sends only the options it is given), so the study workflow passes its own to its
 * stage children with Phase5Stage set (workflows/options.ts `childLabels`); stage commands started from the CLI
 * carry their own.
 *
 * Registration is idempotent: `phase5 server start` passes `--search-attribute Name=Type` to the dev server;
 * `phase5 worker` and `phase5 doctor` add them through the operator service on any other cluster.
 */
import type { Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { Config } from '../config/schema';

export const RUN_ATTR = defineSearchAttributeKey('Phase5Run', SearchAttributeType.KEYWORD);
export const STAGE_ATTR = defineSearchAttributeKey('Phase5Stage', SearchAttributeType.KEYWORD);
export const CONFIG_HASH_ATTR = defineSearchAttributeKey('Phase5ConfigHash', SearchAttributeType.KEYWORD);
export const DATASETS_ATTR = defineSearchAttributeKey('Phase5Datasets', SearchAttributeType.KEYWORD_LIST);
export const ARM_ATTR = defineSearchAttributeKey('Phase5Arm', SearchAttributeType.KEYWORD);

/** Name → type, as the dev server's `--search-attribute` flag spells the types. */
export const PHASE5_SEARCH_ATTRIBUTES: Record<string, 'Keyword' | 'KeywordList'> = {
  Phase5Run: 'Keyword',
  Phase5Stage: 'Keyword',
  Phase5ConfigHash: 'Keyword',
  Phase5Datasets: 'KeywordList',
  Phase5Arm: 'Keyword',
};

/** `--search-attribute Name=Type` arguments for `temporal server start-dev`. */
export function searchAttributeFlags(): string[] {
  return Object.entries(PHASE5_SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}

/** Operator-service enum values (temporal.api.enums.v1.IndexedValueType). */
const INDEXED_VALUE_TYPE = { Keyword: 2, KeywordList: 7 } as const;

/**
 * Register the attributes on a cluster that lacks them; attributes that exist already are left alone, so this
 * may run on every worker or doctor start.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
  const missing = Object.entries(PHASE5_SEARCH_ATTRIBUTES).filter(([name]) => !known.has(name));
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, INDEXED_VALUE_TYPE[type]])),
    });
  } catch (err) {
    // Another process registered them between our list and add.
    if (!/already exists/i.test((err as Error).message)) throw err;
  }
  return missing.map(([name]) => name);
}

export interface RunLabels {
  /** The run name (config `run_name` / `--run`). */
  run: string;
  /** build | export | infer | analyze, or `run` for the study workflow. */
  stage: string;
  /** The 8-hex identity hash of the run key. */
  configHash: string;
  datasets: string[];
  /** Experiment arm; none exist yet, so it is left out. */
  arm?: string;
}

export function runSearchAttributes(labels: RunLabels): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: RUN_ATTR, value: labels.run },
    { key: STAGE_ATTR, value: labels.stage },
    { key: CONFIG_HASH_ATTR, value: labels.configHash },
    { key: DATASETS_ATTR, value: labels.datasets },
  ];
  if (labels.arm) pairs.push({ key: ARM_ATTR, value: labels.arm });
  return pairs;
}

/** The memo shown in the UI beside a run: what the config says about corpus, index, models and k. */
export function runMemo(config: Config, datasets: string[]): Record<string, unknown> {
  const llm = config.infer.backend !== 'local' ? config.infer.openai.model : config.infer.local.model_path;
  return {
    corpus_source: config.corpus.source?.type ?? 'openiti',
    corpus_max_sentences: config.corpus.max_sentences,
    index_type: config.index.type,
    embedding_model: config.rag.embedding_model,
    llm_backend: config.infer.backend,
    llm_model: llm,
    top_k: config.retrieval.top_k,
    min_score: config.retrieval.min_score,
    datasets,
    arms: config.study ? config.study.arms.map((a) => a.name) : config.infer.arms,
  };
}

/**
 * The start options that make a run searchable: `run` is the run key (`<run_name>-<hash8>`), `stage` the
 * stage name or `run` for the study workflow.
 */
export function runStartLabels(
  config: Config,
  datasetsOption: string[] | undefined,
  run: string,
  stage: string,
): { typedSearchAttributes: SearchAttributePair[]; memo: Record<string, unknown> } {
  const datasets = datasetsOption?.length ? datasetsOption : Object.keys(config.datasets);
  const configHash = run.slice(run.lastIndexOf('-') + 1);
  return {
    typedSearchAttributes: runSearchAttributes({ run: config.run_name, stage, configHash, datasets }),
    memo: runMemo(config, datasets),
  };
}

/**
 * What a cluster's refusal to register the attributes (no operator rights: Temporal Cloud, a locked-down
 * namespace) costs, in one line: runs start without the labels (src/temporal/client.ts `startOrAttach`).
 */
export function searchAttributesRefused(err: unknown): string {
  const why = String((err as Error)?.message ?? err).split('\n')[0];
  return `the cluster refused to register the search attributes ${Object.keys(PHASE5_SEARCH_ATTRIBUTES).join(', ')} (${why}) — runs start without them, so \`phase5 runs\` and UI searches by Phase5Run do not list them; an operator can add them (docs/cluster.md)`;
}

/** An error of a start (or its cause: the SDK wraps the server's answer) naming search attributes the namespace lacks. */
export function isUnknownSearchAttribute(err: unknown): boolean {
  for (let e = err as { message?: string; cause?: unknown } | undefined, n = 0; e && n < 8; e = e.cause as typeof e, n++) {
    const m = String(e.message ?? '');
    if (/search attribute/i.test(m) && /no mapping|not (defined|registered|found)|unknown|invalid/i.test(m)) return true;
  }
  return false;
}

/** Register the attributes before a start; on a cluster that refuses (no operator rights) runs start without them. */
export async function tryEnsureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  await ensureSearchAttributes(connection, namespace).catch(() => undefined);
}
