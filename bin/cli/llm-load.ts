/** The LLM endpoint's load for a person: ` · 212 lines/s · 180 requests in flight (limit 190) · median latency 1.2 s`. */
import type { LlmLoad } from '../../src/stages/infer/llm-load';

const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/** Empty when there is nothing to show (a local backend, a run before any answer). */
export function loadSuffix(load: LlmLoad | undefined, linesPerS?: number | null): string {
  const parts = [
    ...(linesPerS ? [`${linesPerS.toFixed(linesPerS < 10 ? 1 : 0)} lines/s`] : []),
    ...(load ? [`${Math.round(load.in_flight)} requests in flight (limit ${load.limit})`] : []),
    ...(load?.median_latency_ms != null ? [`median latency ${seconds(load.median_latency_ms)}`] : []),
  ];
  return parts.map((p) => ` · ${p}`).join('');
}
