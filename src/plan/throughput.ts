/**
 * The endpoint's throughput before a run (docs/plan.md#duration): a short probe sends real prompts of the plan
 * at rising concurrency (1, 4, 16, 64 … up to the arm's `concurrency`), 2 × c requests per level, and keeps the
 * best lines per second; it stops rising once a level gains less than 10 % (the endpoint's knee). These are
 * probe requests, not corrections: nothing is written.
 */
import { OpenAiCompatibleBackend, type OpenAiBackendOptions } from '../llm';
import type { ChatMessage } from '../prompts/builder';

export interface ThroughputLevel {
  concurrency: number;
  requests: number;
  lines_per_s: number;
}

export interface Throughput {
  lines_per_s: number;
  levels: ThroughputLevel[];
}

/** Requests per second at each concurrency, with prompts taken in turn from `prompts`. */
export async function probeThroughput(
  endpoint: OpenAiBackendOptions,
  prompts: ChatMessage[][],
  maxConcurrency: number,
): Promise<Throughput> {
  if (prompts.length === 0) throw new Error('throughput probe: no prompts to send');
  const backend = new OpenAiCompatibleBackend({ ...endpoint, adaptive: false, concurrency: maxConcurrency, retry: { maxRetries: 0 } });
  const levels: ThroughputLevel[] = [];
  let k = 0;
  try {
    for (let c = 1; c <= maxConcurrency; c = c * 4 > maxConcurrency && c < maxConcurrency ? maxConcurrency : c * 4) {
      const n = 2 * c;
      const t0 = performance.now();
      let sent = 0;
      const lane = async () => {
        while (sent < n) {
          sent++;
          await backend.complete(prompts[k++ % prompts.length], {});
        }
      };
      await Promise.all(Array.from({ length: c }, lane)); // exactly c requests in flight
      const rate = n / ((performance.now() - t0) / 1000);
      levels.push({ concurrency: c, requests: n, lines_per_s: rate });
      const prev = levels.at(-2);
      if ((prev && rate < prev.lines_per_s * 1.1) || c === maxConcurrency) break;
    }
  } finally {
    await backend.close();
  }
  return { lines_per_s: Math.max(...levels.map((l) => l.lines_per_s)), levels };
}
