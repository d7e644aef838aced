/**
 * Export activities (CPU queue): plan, one activity per shard (fanned out to every worker), merge.
 * Thin adapters over src/stages/export; the retriever comes from the worker's dependencies (opened once per
 * process and reused across shards).
 */
import * as exporter from '../src/stages/export/export';
import type { StageInput } from '../src/stages/shared/types';
import { witnessGather, witnessShardRound, type Round, type WitnessScatter } from '../src/stages/witness/scatter';
import { groupOptions as groupOptionsOf } from '../src/stages/export/export';
import { asActivity } from './as-activity';
import { runExclusive } from './exclusive';
import { keptAlive, optionsOfInput, withActivityHooks } from './hooks';
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
    /** A sharded witness export's gather: the next round for the index shards to answer, or 'hits' (src/stages/witness/scatter.ts). */
    async witnessGather(args: { input: StageInput; plan: exporter.ExportPlan; scatter: WitnessScatter }): Promise<Round> {
      return asActivity(() =>
        keptAlive('export:witness-gather', () =>
          witnessGather(groupOptionsOf(options(args.input), args.scatter.group), args.plan, args.scatter),
        ),
      );
    },
    /** One index shard's part of a round, in this worker's memory alone. */
    async witnessShardRound(args: { input: StageInput; scatter: WitnessScatter; round: Round; shard: number }): Promise<void> {
      const { input, scatter, round, shard } = args;
      return asActivity(() =>
        keptAlive(`export:witness-shard-${shard}`, async () =>
          witnessShardRound(groupOptionsOf(options(input), scatter.group), scatter, round, shard),
        ),
      );
    },
    async mergeExport(args: { input: StageInput; plan: exporter.ExportPlan }): Promise<exporter.ExportMergeResult> {
      return asActivity(() => keptAlive('export:merge', () => exporter.mergeExport(options(args.input), args.plan)));
    },
  };
}
