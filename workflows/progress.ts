/** Progress state every workflow exposes through the `progress` query, and the step setter the workflows share. */
import { defineQuery, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WorkflowProgress } from './types';

export const progressQuery = defineQuery<WorkflowProgress>('progress');

export function nowIso(): string {
  return new Date().toISOString(); // deterministic inside workflows (replayed from history)
}

/** Progress state every workflow exposes through the `progress` query. */
export function trackProgress(stage: WorkflowProgress['stage']): WorkflowProgress {
  const p: WorkflowProgress = {
    workflow: workflowInfo().workflowType,
    stage,
    step: 'starting',
    done: 0,
    total: 0,
    unit: 'steps',
    startedAt: nowIso(),
    updatedAt: nowIso(),
    stages: {},
    results: {},
  };
  setHandler(progressQuery, () => p);
  return p;
}

export function setStep(p: WorkflowProgress, step: string, done: number, total: number, unit = 'steps'): void {
  Object.assign(p, { step, done, total, unit, updatedAt: nowIso() });
}

/** The innermost message of a failure chain (ActivityFailure → ApplicationFailure …), on one line. */
export function rootFailureMessage(err: unknown): string {
  let cur = err as { cause?: unknown; message?: string } | undefined;
  for (let i = 0; cur?.cause && i < 32; i++) cur = cur.cause as typeof cur;
  return String(cur?.message ?? err)
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A workflow that failed for good but still has work to do before it ends (an arm merging the lines it kept)
 * says so at once in its `progress` query (`results.failure`), so the CLI, `phase5 status` and `phase5 runs` show
 * the reason while the workflow is still running. Query state only: no workflow command changes.
 */
export function recordFailure(p: WorkflowProgress, err: unknown): void {
  Object.assign(p.results, { failure: rootFailureMessage(err) });
  p.updatedAt = nowIso();
}
