/**
 * The shapes the CLI reads back from Temporal: the `progress` query of every workflow and the heartbeat
 * details of every long activity. Plain types, shared by workflows, activities and the client.
 */
import type { StageName } from '../config/schema';
import type { LlmLoad } from '../stages/infer/llm-load';

export type StageState = 'pending' | 'running' | 'done' | 'skipped' | 'failed';

/** What the `progress` query returns; `R` is the shape of the small per-step results (typed by the workflows). */
export interface Progress<R extends object = object> {
  workflow: string;
  stage: StageName | 'doctor' | null;
  step: string;
  done: number;
  total: number;
  unit: string;
  startedAt: string;
  updatedAt: string;
  stages: Partial<Record<StageName, StageState>>;
  /** Small per-step results (counts, paths) as they complete. */
  results: R;
}

/** Heartbeat details of every long activity: progress plus the checkpoint a retry resumes from. */
export interface HeartbeatProgress {
  step: string;
  done: number;
  total: number;
  unit: string;
  /** ISO time this attempt started and how much was done then (for rate and ETA). */
  attemptStartedAt: string;
  doneAtAttemptStart: number;
  checkpoint?: Record<string, unknown>;
  /** Infer shards: the LLM endpoint's load on this worker (requests in flight, limit, median latency). */
  load?: LlmLoad;
}

export function stageWorkflowId(run: string, stage: StageName): string {
  return `phase5-${run}-${stage}`;
}
/** The memorisation probe's workflow (`phase5 probe`), beside the study's stages. */
export function probeWorkflowId(run: string): string {
  return `phase5-${run}-probe`;
}
export function runWorkflowId(run: string): string {
  return `phase5-${run}`;
}

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DoctorReport {
  queue: string;
  host: string;
  pid: number;
  checks: DoctorCheck[];
}
