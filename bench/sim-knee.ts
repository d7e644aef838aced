/**
 * The simulated box's knee, timed (test/helpers/sim-llm-server.ts with `knee`; the test asserts what the box did,
 * this prints how long it took): rounds of n requests sent at once through the openai backend, for n from 1 to
 * 4 × knee. Per round: the median and the slowest latency, and the reference — `base` ms while n ≤ knee (each
 * request has the box to itself), base × n / knee beyond it (all share it) — and throughput beside the box's
 * peak, knee / base lines/s. Timers on a busy machine fire late (latency above the reference); beyond the knee the
 * requests of a round arrive a little apart, the first ones served at full speed meanwhile (a little below it).
 *
 *   npx tsx bench/sim-knee.ts [--knee 4] [--base-ms 200] [--json]
 */
import './quiet-logs';
import { OpenAiCompatibleBackend } from '../src/llm';
import { buildPrompt } from '../src/prompts/builder';
import { startSimLlmServer } from '../test/helpers/sim-llm-server';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const knee = arg('knee', 4);
  const baseMs = arg('base-ms', 200);
  const sim = await startSimLlmServer({ knee, baseMs });
  const backend = new OpenAiCompatibleBackend({
    baseUrl: sim.url,
    model: 'sim',
    concurrency: 8 * knee,
    adaptive: false,
    retry: { maxRetries: 0 },
  });
  const rows: Record<string, number>[] = [];
  try {
    for (const n of [1, Math.max(1, knee / 2), knee, 2 * knee, 4 * knee].map(Math.round)) {
      const before = sim.answers().length;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: n }, (_, i) => backend.complete(buildPrompt('zero_shot', `سطر ${n} ${i}`).messages)));
      const wallMs = performance.now() - t0;
      const latencies = sim
        .answers()
        .slice(before)
        .map((a) => a.latencyMs);
      rows.push({
        in_flight: n,
        median_ms: Math.round(median(latencies)),
        max_ms: Math.round(Math.max(...latencies)),
        reference_ms: Math.round(baseMs * Math.max(1, n / knee)),
        lines_per_s: Number((n / (wallMs / 1000)).toFixed(2)),
        reference_lines_per_s: Number((Math.min(n, knee) / (baseMs / 1000)).toFixed(2)),
      });
    }
  } finally {
    await sim.close();
  }
  if (process.argv.includes('--json')) return console.log(JSON.stringify({ knee, base_ms: baseMs, rows }, null, 2));
  console.log(`sim box, knee ${knee}, base ${baseMs} ms (peak ${(knee / (baseMs / 1000)).toFixed(1)} lines/s)`);
  console.log('in flight  median ms  max ms  reference ms  lines/s  reference lines/s');
  for (const r of rows)
    console.log(
      `${String(r.in_flight).padStart(9)}  ${String(r.median_ms).padStart(9)}  ${String(r.max_ms).padStart(6)}  ${String(r.reference_ms).padStart(12)}  ${String(r.lines_per_s).padStart(7)}  ${String(r.reference_lines_per_s).padStart(17)}`,
    );
}

void main();
