/** Activity and child-workflow options from the config: options only, so changing them changes no workflow command. */
import { proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { Duration, TypedSearchAttributes } from '@temporalio/common';
import { RUN_ATTR, STAGE_ATTR } from '../src/temporal/search-attributes';
import type { Activities } from '../activities';
import type { Config, StageName } from './types';

/** Used when a config without `temporal.max_parallel_activities` reaches the workflow code. */
export const DEFAULT_MAX_PARALLEL = 64;

/**
 * Activity options for one stage, from the config (queue, timeouts, retry policy: the stage's own, e.g. infer's
 * unlimited attempts that ride out an LLM outage, else `temporal.retry`). Options only — changing them changes
 * no workflow command, so histories still replay.
 */
export function stageOptions(config: Config, stage: StageName): ActivityOptions {
  const t = config.temporal;
  const s = t.stages[stage];
  const retry = s.retry ?? t.retry;
  return {
    taskQueue: t.queues[s.queue],
    startToCloseTimeout: s.start_to_close as Duration,
    heartbeatTimeout: t.heartbeat_timeout as Duration,
    retry: {
      // 0 = unlimited in the config; the SDK wants the key left out for that.
      ...(retry.maximum_attempts > 0 ? { maximumAttempts: retry.maximum_attempts } : {}),
      initialInterval: retry.initial_interval as Duration,
      backoffCoefficient: retry.backoff_coefficient,
      maximumInterval: retry.maximum_interval as Duration,
      // Bad input and bad config do not get better by retrying; neither does an infer stage with too many failed lines.
      nonRetryableErrorTypes: ['UserInputError', 'ConfigError', 'InferFailedError'],
    },
  };
}

export function stageActivities(config: Config, stage: StageName) {
  return proxyActivities<Activities>(stageOptions(config, stage));
}

export type StageActivities = ReturnType<typeof stageActivities>;

/**
 * The infer stage's activities on the CPU queue: a non-LLM arm's shards and merge (docs/correctors.md), with the
 * infer stage's timeout and retry policy.
 */
export function cpuInferActivities(config: Config) {
  return proxyActivities<Activities>({ ...stageOptions(config, 'infer'), taskQueue: config.temporal.queues.cpu });
}

/**
 * The study's search attributes and memo for a stage child, with Phase5Stage set to the stage: the SDK does not
 * copy them to children, and a stage must be findable by run like the study. Only when the study carries them
 * (it was started by the CLI on a cluster that has them), so studies without labels start children without them.
 * An attribute of the child-start command, not a new command: replay is unaffected (test/replay checks).
 */
export function childLabels(stage: StageName): { typedSearchAttributes?: TypedSearchAttributes; memo?: Record<string, unknown> } {
  const info = workflowInfo();
  if (info.typedSearchAttributes.get(RUN_ATTR) === undefined) return {};
  return { typedSearchAttributes: info.typedSearchAttributes.updateCopy([{ key: STAGE_ATTR, value: stage }]), memo: info.memo };
}
