/** An arm's LLM load while it runs: each worker's latest heartbeat load (all its shards report the same), summed. */
import { acrossWorkers, type LlmLoad } from '../stages/infer/llm-load';
import type { HeartbeatProgress } from './types';

export function armLoad(activities: { worker?: string; heartbeat: HeartbeatProgress | null }[]): LlmLoad | undefined {
  const perWorker = new Map<string, LlmLoad>();
  for (const a of activities) if (a.heartbeat?.load) perWorker.set(a.worker ?? '?', a.heartbeat.load);
  return acrossWorkers([...perWorker.values()]);
}
