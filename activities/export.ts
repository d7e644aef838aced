/**
 * Export activities (CPU queue): plan, one activity per shard (fanned out to every worker), merge.
 * Thin adapters over src/stages/export; the retriever comes from the worker's dependencies (opened once per
 * process and reused across shards).
 */
import * as exporter from '../src/stages/export';
import type { StageInput } from '../src/stages/types';
import { asActivity, keptAlive, optionsOfInput, runExclusive, withActivityHooks } from './context';
import type { ActivityDeps } from './deps';

export function createExportActivities(deps: ActivityDeps) {
  const options = optionsOfInput(exporter.optionsFrom);
  return {
    async planExport(input: StageInput): Promise<exporter.ExportPlan> {
      // Plan and merge read every dataset / write the whole export: they heartbeat while they run.
      return asActivity(() => keptAlive('export:plan', () => exporter.planExport(options(input))));
    },
    async exportShard(args: { input: StageInput; shard: exporter.ExportShard }): Promise<exporter.ExportShardResult> {
      const { input, shard } = args;
      const file = exporter.shardFile(input.config, shard);
      // One writer per shard file in this process: a newer attempt supersedes an older one still running here.
      return asActivity(() =>
        runExclusive(file, (signal) => {
          const opts = options(input);
          return withActivityHooks(`${shard.dataset}#${shard.index}`, 'records', shard.end - shard.start, (hooks) =>
            // The shard's own (study arm's) config and corpus: a hybrid arm gets a hybrid retriever, cached apart from the dense one.
            exporter.exportShard(opts, shard, deps.openRetriever, { ...hooks, signal }),
          );
        }),
      );
    },
    async mergeExport(args: { input: StageInput; plan: exporter.ExportPlan }): Promise<exporter.ExportMergeResult> {
      return asActivity(() => keptAlive('export:merge', () => exporter.mergeExport(options(args.input), args.plan)));
    },
  };
}
