/**
 * Every activity the workers register, created from their dependencies (`createActivities(deps)`, as in
 * Temporal's TypeScript samples). Workflows import this module as types only.
 */
import { createAnalyzeActivities } from './analyze';
import { createBatchActivities } from './batch';
import { createBuildActivities } from './build';
import { createCorrectActivities } from './correct';
import { defaultDeps, withEndpointOverride, type ActivityDeps } from './deps';
import { checkEnvironment } from './doctor';
import { createExportActivities } from './export';
import { createInferActivities } from './infer';
import { createProbeActivities } from './probe';

export type { ActivityDeps };
export { defaultDeps, withEndpointOverride };

export function createActivities(deps: ActivityDeps = defaultDeps()) {
  return {
    checkEnvironment,
    ...createBuildActivities(),
    ...createExportActivities(deps),
    ...createInferActivities(deps),
    ...createBatchActivities(),
    ...createCorrectActivities(),
    ...createAnalyzeActivities(),
    ...createProbeActivities(),
  };
}

export type Activities = ReturnType<typeof createActivities>;
