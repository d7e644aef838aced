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
