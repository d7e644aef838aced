/**
 * What activities need from the outside world, passed to `createActivities` (as in Temporal's TypeScript
 * samples): the export retriever and the LLM backend. Workers use the real ones; tests pass small real
 * components or fault-injecting doubles.
 */
import { statSync } from 'node:fs';
import type { Config } from '../src/config/schema';
import { indexFiles } from '../src/index/manifest';
import { createBackend } from '../src/llm';
import { applyEndpointOverride, type EndpointOverride } from '../src/llm/endpoint';
import type { OpenBackend } from '../src/stages/infer/infer';
import {
  exportRetrieverKey,
  openExportRetriever,
  type ClosableRetriever,
  type ExportRetriever,
  type StagePaths,
} from '../src/stages/build/retriever';

export interface ActivityDeps {
  /** The retriever for a config's index (export shards). */
  openRetriever(config: Config, paths: StagePaths): Promise<ExportRetriever>;
  /** The LLM backend for one arm's infer (closed by the stage). */
  openBackend: OpenBackend;
  /**
   * Called when an infer attempt failed because the LLM endpoint did not serve (an outage, not a bad line):
   * a worker with its own endpoint pauses its GPU queue on it (bin/cli/worker-runtime.ts). Unset: nothing.
   */
  endpointDown?(reason: string): void;
  /**
   * Called when an infer attempt failed on something only this worker lacks and is retried on another worker
   * (activities/failure-kind.ts): the worker pauses its infer queue a while, so the retry goes to a worker that has
   * it. Not called when the failure ends the run (every live worker failed so): no other worker would take the
   * next task, and a pause would only hold back the failures of the tasks still queued. Unset: nothing.
   */
  workerLocalFailure?(reason: string): void;
}

/** The real dependencies of a worker process; `endpoint`: the worker's own LLM endpoint (`phase5 worker --openai-base-url`). */
export function defaultDeps(endpoint: EndpointOverride = {}): ActivityDeps {
  return { openRetriever: cachedRetrievers(openExportRetriever), openBackend: withEndpointOverride(createBackend, endpoint) };
}

/**
 * The worker's override applied to every backend it opens: the config in the workflow input (and so in its
 * history) keeps the study's endpoint; only this process talks to its own.
 */
export function withEndpointOverride(open: OpenBackend, endpoint: EndpointOverride): OpenBackend {
  if (Object.keys(endpoint).length === 0) return open;
  return (config) => open(applyEndpointOverride(config, endpoint));
}

/**
 * Open each retriever once per worker and reuse it across shards (loading the model and index is the slow
 * part); reopen it when the index on disk changes (a rebuild).
 */
export function cachedRetrievers(open: (config: Config, paths: StagePaths) => Promise<ClosableRetriever>): ActivityDeps['openRetriever'] {
  const cache = new Map<string, { stamp: string; retriever: Promise<ClosableRetriever> }>();
  return async (config, paths) => {
    const key = exportRetrieverKey(config, paths);
    const stamp = String(statSync(indexFiles(paths.index).manifest).mtimeMs);
    let hit = cache.get(key);
    if (!hit || hit.stamp !== stamp) {
      if (hit) void hit.retriever.then((r) => r.close()).catch(() => undefined);
      const retriever = open(config, paths);
      retriever.catch(() => cache.delete(key));
      hit = { stamp, retriever };
      cache.set(key, hit);
    }
    return hit.retriever;
  };
}
