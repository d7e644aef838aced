/**
 * Plain types shared by workflows, activities and the CLI client. Only small values cross Temporal:
 * the validated config (a few KB), CLI options, paths and counts — never bulk data.
 */
import type { Config, StageName } from '../src/config/schema';

export type { Config, StageName };

/** CLI options that are not config keys (config-key flags such as --top-k are merged into the config). */
export interface RunOptions {
  /** Max samples per dataset (export). */
  limit?: number;
  /** Subset of dataset keys. */
  datasets?: string[];
  corpusPath?: string;
  indexPath?: string;
  /** Existing zero-shot results: the infer stage then skips the baseline condition. */
  phase2Dir?: string;
  noErrorAnalysis?: boolean;
  /** A corrections.jsonl produced elsewhere, validated and imported instead of running the LLM. */
  importFile?: string;
}

export interface StageInput {
  run: string;
  config: Config;
  options: RunOptions;
  /** Redo the stage's outputs even when they are up to date. */
  force: boolean;
}

export interface Phase5Input {
  run: string;
  config: Config;
  options: RunOptions;
  /** Stages to run, in pipeline order (default all four). */
  stages?: StageName[];
  /** Stages forced (`--force` = all, `--force-stage build`). */
  forceStages?: StageName[];
}

export type StageState = 'pending' | 'running' | 'done' | 'skipped' | 'failed';

/** What the `progress` query returns. */
export interface Progress {
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
  results: Record<string, unknown>;
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

export function stageWorkflowId(run: string, stage: StageName): string {
  return `phase5-${run}-${stage}`;
}
export function runWorkflowId(run: string): string {
  return `phase5-${run}`;
}
