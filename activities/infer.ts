/**
 * Infer activities (GPU queue): the sharded infer — plan, one activity per shard (every GPU worker takes
 * shards), merge per arm — and the import of corrections made elsewhere.
 */
import * as inference from '../src/stages/infer/infer';
import * as shards from '../src/stages/infer/shards';
import type { LlmBackend } from '../src/llm';
import type { StageInput } from '../src/stages/shared/types';
import { asActivity, type ActivityLimits } from './as-activity';
import { runExclusive } from './exclusive';
import { keptAlive, optionsOfInput, withActivityHooks } from './hooks';
import type { ActivityDeps } from './deps';

/**
 * One open backend per backend config in this worker, shared by the shards it runs (a local GGUF loads once,
 * not once per shard; an HTTP backend's concurrency cap covers all its shards); closed after `idleMs` unused.
 */
export function sharedBackends(open: inference.OpenBackend, idleMs = 30_000): inference.OpenBackend {
  const cache = new Map<string, { backend: Promise<LlmBackend>; users: number; timer?: NodeJS.Timeout }>();
  return async (cfg) => {
    const key = JSON.stringify(cfg);
    let entry = cache.get(key);
    if (!entry) {
      const backend = open(cfg);
      entry = { backend, users: 0 };
      cache.set(key, entry);
      backend.catch(() => cache.delete(key));
    }
    const e = entry;
    e.users++;
    if (e.timer) clearTimeout(e.timer);
    const backend = await e.backend.catch((err: unknown) => {
      e.users--;
      throw err;
    });
    const release = async (): Promise<void> => {
      if (--e.users > 0) return;
      e.timer = setTimeout(() => {
        if (e.users > 0 || cache.get(key) !== e) return;
        cache.delete(key);
        void backend.close().catch(() => undefined);
      }, idleMs);
      e.timer.unref();
    };
    return {
      id: backend.id,
      model: backend.model,
      concurrency: backend.concurrency,
      complete: (m, o) => backend.complete(m, o),
      close: release,
      load: () => backend.load?.() ?? null,
      preflight: (signal) => backend.preflight?.(signal) ?? Promise.resolve(),
    };
  };
}

/**
 * `work`, telling `deps` when it failed because the LLM endpoint did not serve. What only this worker lacks is told
 * by asActivity (`onRetryElsewhere`), once the failure is known to be retried on another worker.
 */
export async function reportingOutage<T>(deps: ActivityDeps, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (inference.isOutageFailure(err)) deps.endpointDown?.((err as Error).message);
    throw err;
  }
}

export function createInferActivities(deps: ActivityDeps) {
  const openShared = sharedBackends(deps.openBackend);
  const options = optionsOfInput(inference.optionsFrom);
  const limits = (input: StageInput): ActivityLimits => ({
    maxWorkerLocalAttempts: input.config.temporal.max_worker_local_attempts,
    ...(deps.workerLocalFailure ? { onRetryElsewhere: deps.workerLocalFailure } : {}),
  });
  return {
    /**
     * Plan every arm's shards (plan files, parts dirs); returns the small per-arm plan the workflows fan out. Plan
     * and merge read and write whole files (a million lines at cluster scale), so they heartbeat while they run.
     */
    async planInfer(input: StageInput): Promise<shards.ArmPlan[]> {
      return asActivity(() => keptAlive('infer:plan', () => shards.planInfer(options(input))));
    },
    async inferShard(args: { input: StageInput; arm: shards.ArmPlan; shard: shards.ShardRef }): Promise<shards.InferShardResult> {
      const { input, arm, shard } = args;
      const opts = options(input);
      return asActivity(
        () =>
          runExclusive(shards.partFile(arm.output, shard.dataset, shard.index), (signal) =>
            withActivityHooks<shards.InferShardResult, inference.InferCheckpoint>(shards.shardLabel(arm, shard), 'lines', 0, (hooks) =>
              reportingOutage(deps, () => shards.runShard(opts, arm, shard, { ...hooks, signal }, openShared)),
            ),
          ),
        limits(input),
      );
    },
    async mergeInferArm(args: { input: StageInput; arm: shards.ArmPlan; partial?: boolean }): Promise<shards.ArmMergeResult> {
      return asActivity(() => keptAlive(`infer:merge:${args.arm.arm}`, () => shards.mergeArm(options(args.input), args.arm, args.partial)));
    },
    async importCorrections(input: StageInput): Promise<inference.ImportResult> {
      // Reads the import and the arm's export, writes the arm's corrections: whole files, so it heartbeats while it runs.
      return asActivity(() => keptAlive('infer:import', () => inference.importCorrections(options(input))));
    },
  };
}
