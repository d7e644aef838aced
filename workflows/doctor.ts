/** The doctor workflow: a real round trip, one environment check activity on each task queue. */
import { ActivityFailure, ApplicationFailure, proxyActivities, TimeoutFailure } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { Activities } from '../activities';
import { setStep, trackProgress } from './progress';
import type { Config, DoctorReport } from './types';

export interface DoctorInput {
  queues: string[];
  resultsDir: string;
  /** How long to wait for a worker to pick up the check on each queue. */
  pickupTimeout: Duration;
  /** The study's config: the worker also checks what its stages need on that queue (keys, endpoints, models). */
  config?: Config;
}

export interface DoctorQueueResult {
  queue: string;
  ok: boolean;
  report?: DoctorReport;
  error?: string;
}

/** A real round trip: one environment check activity on each task queue. */
export async function doctorWorkflow(input: DoctorInput): Promise<DoctorQueueResult[]> {
  const p = trackProgress('doctor');
  setStep(p, 'checks', 0, input.queues.length, 'queues');
  let done = 0;
  return Promise.all(
    input.queues.map(async (queue): Promise<DoctorQueueResult> => {
      const acts = proxyActivities<Activities>({
        taskQueue: queue,
        scheduleToStartTimeout: input.pickupTimeout,
        startToCloseTimeout: '2m',
        retry: { maximumAttempts: 1 },
      });
      try {
        const report = await acts.checkEnvironment({
          queue,
          resultsDir: input.resultsDir,
          ...(input.config ? { config: input.config } : {}),
        });
        return { queue, ok: report.checks.every((c) => c.ok), report };
      } catch (err) {
        if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure) {
          return {
            queue,
            ok: false,
            error: `no worker picked up the check within ${String(input.pickupTimeout)} (is a worker polling ${queue}?)`,
          };
        }
        if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
          return { queue, ok: false, error: err.cause.message };
        }
        throw err;
      } finally {
        done++;
        setStep(p, 'checks', done, input.queues.length, 'queues');
      }
    }),
  );
}
