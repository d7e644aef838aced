/**
 * Test workflow: one named activity, with the given heartbeat timeout and a single attempt, so a test can put one
 * real activity under a short heartbeat timeout (test/workflows/stage-heartbeats.test.ts).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';

type AnyActivity = (...args: unknown[]) => Promise<unknown>;

export async function oneActivityWorkflow(name: string, args: unknown[], heartbeatTimeout: Duration): Promise<unknown> {
  const acts = proxyActivities<Record<string, AnyActivity>>({
    startToCloseTimeout: '5m',
    heartbeatTimeout,
    retry: { maximumAttempts: 1 },
  });
  return acts[name](...args);
}
