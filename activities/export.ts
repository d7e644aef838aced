/**
 * Export activities (CPU queue): plan, one activity per shard (fanned out to every worker), merge.
 * Thin adapters over src/stages/export; the retriever comes from the worker's dependencies (opened once per
 * process and reused across shards).
 */
import * as exporter from '../src/stages/export';
import type { StageInput } from '../src/stages/types';
import { activityHooks, asActivity, runExclusive } from './context';
import type { ActivityDeps } from './deps';

export function createExportActivities(deps: ActivityDeps) {
  const options = (input: StageInput) => exporter.optionsFrom(input.config, input.options, input.force);
  return {
    async planExport(input: StageInput): Promise<exporter.ExportPlan> {
      return asActivity(() => exporter.planExport(options(input)));
    },
    async exportShard(args: { input: StageInput; shard: exporter.ExportShard }): Promise<exporter.ShardResult> {
      const { input, shard } = args;
      const file = exporter.shardFile(input.config, shard);
      // One writer per shard file in this process: a newer attempt supersedes an older one still running here.
      return asActivity(() =>
        runExclusive(file, async (signal) => {
          const opts = options(input);
          const hooks = activityHooks(`${shard.dataset}#${shard.index}`, 'records', shard.end - shard.start);
          try {
            // The shard's own (study arm's) config: a hybrid arm gets a hybrid retriever, cached apart from the dense one.
            return await exporter.exportShard(opts, shard, (config) => deps.openRetriever(config, exporter.pathsFor(config, opts)), { ...hooks, signal });
          } finally {
            hooks.stop();
          }
        }),
      );
    },
    async mergeExport(args: { input: StageInput; plan: exporter.ExportPlan }): Promise<exporter.MergeResult> {
      return asActivity(() => exporter.mergeExport(options(args.input), args.plan));
    },
  };
}
