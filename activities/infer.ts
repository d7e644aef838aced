/** Infer activities (GPU queue): one per study arm, and the import of corrections made elsewhere. */
import * as inference from '../src/stages/infer';
import { findArm } from '../src/stages/arms';
import type { StageInput } from '../src/stages/types';
import { activityHooks, asActivity, runExclusive } from './context';
import type { ActivityDeps } from './deps';

export function createInferActivities(deps: ActivityDeps) {
  return {
    /** One arm: `condition` is the arm's name (today's `rag` / `zero_shot`; the name kept so recorded histories replay). */
    async inferCondition(args: { input: StageInput; condition: string }): Promise<inference.ConditionResult> {
      const { input, condition } = args;
      return asActivity(async () => {
        const opts = inference.optionsFrom(input.config, input.options, input.force);
        const arm = findArm(opts.arms, condition);
        // One writer per output file in this process (a newer attempt supersedes an older one still running here).
        return runExclusive(arm.output, async (signal) => {
          const hooks = activityHooks<inference.InferCheckpoint>(`infer:${condition}`, 'samples');
          try {
            return await inference.runArm(opts, arm, { ...hooks, signal }, deps.openBackend);
          } finally {
            hooks.stop();
          }
        });
      });
    },
    async importCorrections(input: StageInput): Promise<inference.ImportResult> {
      return asActivity(() => inference.importCorrections(inference.optionsFrom(input.config, input.options, input.force)));
    },
  };
}
