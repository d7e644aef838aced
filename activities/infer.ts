/** Infer activities (GPU queue): one per condition, and the import of corrections made elsewhere. */
import * as inference from '../src/stages/infer';
import type { StageInput } from '../src/stages/types';
import { activityHooks, asActivity, runExclusive } from './context';
import type { ActivityDeps } from './deps';

export function createInferActivities(deps: ActivityDeps) {
  return {
    async inferCondition(args: { input: StageInput; condition: inference.Condition }): Promise<inference.ConditionResult> {
      const { input, condition } = args;
      const opts = inference.optionsFrom(input.config, input.options, input.force);
      // One writer per output file in this process (a newer attempt supersedes an older one still running here).
      return asActivity(() =>
        runExclusive(opts.outputs[condition], async (signal) => {
          const hooks = activityHooks<inference.InferCheckpoint>(`infer:${condition}`, 'samples');
          try {
            return await inference.runCondition(opts, condition, { ...hooks, signal }, deps.openBackend);
          } finally {
            hooks.stop();
          }
        }),
      );
    },
    async importCorrections(input: StageInput): Promise<inference.ImportResult> {
      return asActivity(() => inference.importCorrections(inference.optionsFrom(input.config, input.options, input.force)));
    },
  };
}
