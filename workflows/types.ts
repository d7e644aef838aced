/**
 * Plain types shared by workflows, activities and the CLI client. Only small values cross Temporal: the
 * validated config (a few KB), CLI options, paths and counts — never bulk data. Inputs and results are typed
 * end to end: the CLI starts workflows by function reference and reads typed results.
 */
import type { Config, StageName } from '../src/config/schema';
import type { BuildResult, CorpusResult, IndexResult } from '../src/stages/build/build';
import type { ExportPlan, ExportMergeResult } from '../src/stages/export/export';
import type { ArmResult, InferResult } from '../src/stages/infer/infer';
import type { Progress } from '../src/temporal/types';
import type { AnalyzeResult } from '../analysis/stage/result';
import type { RunOptions, StageInput } from '../src/stages/shared/types';

export type { Config, StageName, RunOptions, StageInput, BuildResult, IndexResult, InferResult, AnalyzeResult, ArmResult };
export type { Progress, HeartbeatProgress, StageState, DoctorCheck, DoctorReport } from '../src/temporal/types';
export { stageWorkflowId, runWorkflowId } from '../src/temporal/types';

export interface Phase5Input {
  run: string;
  config: Config;
  options: RunOptions;
  /** Stages to run, in pipeline order (default all four). */
  stages?: StageName[];
  /** Stages forced (`--force` = all, `--force-stage build`). */
  forceStages?: StageName[];
}

export interface ExportResult {
  plan: { datasets: { dataset: string; samples: number; shards: number }[] };
  shards: number;
  fallbacks: number;
  merged: ExportMergeResult;
}

/** Per stage, the result of the stages that ran. */
export interface Phase5Result {
  build?: BuildResult;
  export?: ExportResult;
  infer?: InferResult;
  analyze?: AnalyzeResult;
}

export type { ExportPlan };

/** The per-step results a workflow's `progress` query shows as they complete. */
export interface ProgressResults extends Phase5Result {
  corpus?: CorpusResult;
  index?: IndexResult;
  plan?: ExportResult['plan'];
  /** Export: lines of the finished shards and of the whole plan (the CLI adds the running shards' heartbeats). */
  lines?: { done: number; total: number };
  merged?: ExportMergeResult;
  rag?: ArmResult;
  zero_shot?: ArmResult;
  /** Sharded infer: each arm's child workflow, lines and shards. */
  arms?: Record<string, { workflowId: string; lines: number; shards: number }>;
  /** An arm's workflow: its name and the lines done when this run (of a continue-as-new chain) began. */
  arm?: string;
  linesAtRunStart?: number;
  /** Infer: every other study arm's result, by arm name. */
  [arm: string]: unknown;
}

export type WorkflowProgress = Progress<ProgressResults>;
