/**
 * The LLM endpoint's load as it crosses Temporal: three small numbers per infer shard (in its heartbeats and its
 * result), per arm (the busiest shard's) and per running arm in `phase5 status` (summed over workers).
 */
import type { EndpointLoad } from '../../llm/types';

export interface LlmLoad {
  /** Requests in flight to the endpoint from the worker: mean over the shard (a heartbeat: now). */
  in_flight: number;
  /** The worker's adaptive limit for the endpoint. */
  limit: number;
  /** Median latency of the endpoint's last window of answers (ms). */
  median_latency_ms: number | null;
}

/** The load now (a heartbeat). */
export function loadNow(l: EndpointLoad): LlmLoad {
  return { in_flight: l.inFlight, limit: l.limit, median_latency_ms: round(l.medianLatencyMs) };
}

/** The load over a span (a shard): mean requests in flight between two readings. */
export function loadOver(start: EndpointLoad, end: EndpointLoad): LlmLoad {
  const ms = end.atMs - start.atMs;
  const mean = ms > 0 ? (end.inFlightMs - start.inFlightMs) / ms : end.inFlight;
  return { in_flight: Math.round(mean * 10) / 10, limit: end.limit, median_latency_ms: round(end.medianLatencyMs) };
}

/** An arm's load: its busiest shard's (deterministic and pure, so workflows may call it). */
export function busier(a: LlmLoad | undefined, b: LlmLoad | undefined): LlmLoad | undefined {
  if (!a) return b;
  if (!b) return a;
  return b.in_flight > a.in_flight ? b : a;
}

/** Several workers on one arm: requests in flight and limits add up; the latency is the median of theirs. */
export function acrossWorkers(loads: LlmLoad[]): LlmLoad | undefined {
  if (loads.length === 0) return undefined;
  const lat = loads
    .map((l) => l.median_latency_ms)
    .filter((x): x is number => x !== null)
    .sort((x, y) => x - y);
  return {
    in_flight: loads.reduce((n, l) => n + l.in_flight, 0),
    limit: loads.reduce((n, l) => n + l.limit, 0),
    median_latency_ms: lat.length ? lat[lat.length >> 1] : null,
  };
}

function round(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms);
}
