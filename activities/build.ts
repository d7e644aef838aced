/** Build activities (CPU queue): thin adapters over src/stages/build. */
import * as build from '../src/stages/build';
import type { StageInput } from '../src/stages/types';
import { activityHooks, asActivity } from './context';

export function createBuildActivities() {
  return {
    async buildCorpus(input: StageInput): Promise<build.CorpusResult> {
      return asActivity(async () => {
        const hooks = activityHooks('corpus', 'bytes');
        try {
          return await build.buildCorpus(build.optionsFrom(input.config, input.options, input.force), hooks);
        } finally {
          hooks.stop();
        }
      });
    },
    async buildIndex(input: StageInput): Promise<build.IndexResult> {
      return asActivity(async () => {
        const hooks = activityHooks<build.EmbedCheckpoint>('embed', 'sentences');
        try {
          return await build.buildIndex(build.optionsFrom(input.config, input.options, input.force), hooks);
        } finally {
          hooks.stop();
        }
      });
    },
  };
}
