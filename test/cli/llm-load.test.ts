/**
 * The LLM endpoint's load in `phase5 status` (per running arm, from its shards' heartbeats) and in the infer
 * summary (from the arm's result): lines/s, requests in flight with the limit, median latency.
 */
import { expect } from 'chai';
import { describeArms } from '../../bin/cli/watch';
import { summarizeResult } from '../../bin/cli/summary';
import { armLoad } from '../../src/temporal/arm-load';
import { busier, loadOver } from '../../src/stages/infer/llm-load';
import type { ArmStatus, StatusView } from '../../src/temporal/client';
import type { HeartbeatProgress } from '../../src/temporal/types';

const beat = (load?: HeartbeatProgress['load']): HeartbeatProgress => ({
  step: 's',
  done: 1,
  total: 2,
  unit: 'lines',
  attemptStartedAt: '2026-01-01T00:00:00Z',
  doneAtAttemptStart: 0,
  ...(load ? { load } : {}),
});

describe('cli: the LLM endpoint load in status and summary', () => {
  it("sums each worker once (its shards report the same limiter), the latency as the median of the workers'", () => {
    const load = armLoad([
      { worker: '1@gpu-a', heartbeat: beat({ in_flight: 100, limit: 120, median_latency_ms: 900 }) },
      { worker: '1@gpu-a', heartbeat: beat({ in_flight: 110, limit: 120, median_latency_ms: 1000 }) },
      { worker: '2@gpu-b', heartbeat: beat({ in_flight: 60, limit: 64, median_latency_ms: 1400 }) },
      { worker: '3@gpu-c', heartbeat: beat() },
    ]);
    expect(load).to.deep.equal({ in_flight: 170, limit: 184, median_latency_ms: 1400 });
    expect(armLoad([{ worker: 'x', heartbeat: beat() }])).to.equal(undefined);
  });

  it("shows a running arm's requests in flight, limit and median latency in phase5 status", () => {
    const arm: ArmStatus = {
      arm: 'rag',
      workflowId: 'w',
      status: 'RUNNING',
      done: 1200,
      total: 5092,
      rate: 212,
      etaSeconds: 18,
      workers: ['1@gpu-a'],
      load: { in_flight: 180, limit: 190, median_latency_ms: 1234 },
    };
    const view = { workflowId: 'phase5-x-infer', status: 'RUNNING', arms: [arm] } as unknown as StatusView;
    expect(describeArms(view)).to.deep.equal([
      'arm rag 1,200/5,092 lines · 212 lines/s · ETA 18 s · workers 1@gpu-a · 180 requests in flight (limit 190) · median latency 1.2 s',
    ]);
  });

  it("gives the achieved lines/s and the busiest shard's load in the infer summary; nothing more without a load", () => {
    const base = { arm: 'rag', output: 'out.jsonl', written: 5000, skippedExisting: 0, failed: 0, model: 'm', elapsedMs: 20_000 };
    const [line] = summarizeResult('infer', { rag: { ...base, load: { in_flight: 63.5, limit: 70, median_latency_ms: 240 } } });
    expect(line).to.equal(
      'infer rag: 5,000 written, 0 already done, 0 failed (m) · 250 lines/s · 64 requests in flight (limit 70) · median latency 240 ms → out.jsonl',
    );
    expect(summarizeResult('infer', { rag: base })[0]).to.equal('infer rag: 5,000 written, 0 already done, 0 failed (m) → out.jsonl');
  });

  it("a shard's load is the mean in flight over its span; an arm keeps its busiest shard's", () => {
    const at = (inFlightMs: number, atMs: number) => ({
      inFlight: 0,
      queued: 0,
      limit: 64,
      medianLatencyMs: 1000.4,
      noLoadLatencyMs: 900,
      inFlightMs,
      atMs,
    });
    const shard = loadOver(at(1000, 0), at(1000 + 64 * 10_000, 10_000));
    expect(shard).to.deep.equal({ in_flight: 64, limit: 64, median_latency_ms: 1000 });
    const tail = { ...shard, in_flight: 20 };
    expect(busier(busier(undefined, shard), tail)).to.equal(shard);
  });
});
