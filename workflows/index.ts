/**
 * Workflows: orchestration only (deterministic, no I/O). Each stage is its own workflow with a stable id
 * (`phase5-<run>-<stage>`), so the CLI can start a single stage or the whole study, and re-running a
 * command attaches to the running (or finished) workflow instead of starting a duplicate.
 * Activities are routed to the CPU or GPU task queue named in the config, per stage.
 *
 * VERSIONING RULE — read before changing a workflow. A running workflow is resumed by replaying its history
 * against the code of the worker that picks it up, so new code must issue the same commands as the old code
 * did, in the same order, for every history that may still be running.
 *  - A change that alters the commands a workflow issues (an activity, child workflow or timer added, removed
 *    or reordered; different arguments that change which activities run) goes under `if (patched('<id>'))`,
 *    keeping the old code in the `else` branch, or becomes a new workflow type. The old branch stays until no
 *    history without the marker can still be running; then `deprecatePatch('<id>')`, later remove both.
 *  - Changes that issue the same commands (progress fields, logging, result shaping) need no patch.
 *  - Then record new histories with a new prefix (`npm run record-histories -- v3`) and keep the old
 *    recordings: test/replay/replay.test.ts replays both, so the old branch stays covered.
 * Example: `bounded-export-fanout` in exportWorkflow (v1-* histories take the old branch, v2-* the new).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  defineQuery,
  defineSignal,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  TimeoutFailure,
  workflowInfo,
  type ActivityOptions,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { Duration, TypedSearchAttributes } from '@temporalio/common';
import { RUN_ATTR, STAGE_ATTR } from '../src/temporal/search-attributes';
import { armNames } from '../src/stages/arm-names';
import { busier } from '../src/stages/llm-load';
import type { Activities } from '../activities';
import type { ArmPlan, ShardRef, ShardResult } from '../src/stages/infer-shards';
import {
  stageWorkflowId,
  type AnalyzeResult,
  type BuildResult,
  type ConditionResult,
  type Config,
  type DoctorReport,
  type ExportResult,
  type IndexResult,
  type InferResult,
  type Phase5Input,
  type Phase5Result,
  type WorkflowProgress,
  type StageInput,
  type StageName,
} from './types';

export const progressQuery = defineQuery<WorkflowProgress>('progress');
/** Parent → arm child of the sharded infer: the arm's new window (shards in flight); it only ever grows. */
export const setWindowSignal = defineSignal<[number]>('setWindow');

const ALL_STAGES: StageName[] = ['build', 'export', 'infer', 'analyze'];

function nowIso(): string {
  return new Date().toISOString(); // deterministic inside workflows (replayed from history)
}

/** Progress state every workflow exposes through the `progress` query. */
function trackProgress(stage: WorkflowProgress['stage']): WorkflowProgress {
  const p: WorkflowProgress = {
    workflow: workflowInfo().workflowType,
    stage,
    step: 'starting',
    done: 0,
    total: 0,
    unit: 'steps',
    startedAt: nowIso(),
    updatedAt: nowIso(),
    stages: {},
    results: {},
  };
  setHandler(progressQuery, () => p);
  return p;
}

function setStep(p: WorkflowProgress, step: string, done: number, total: number, unit = 'steps'): void {
  Object.assign(p, { step, done, total, unit, updatedAt: nowIso() });
}

/**
 * Activity options for one stage, from the config (queue, timeouts, retry policy: the stage's own, e.g. infer's
 * unlimited attempts that ride out an LLM outage, else `temporal.retry`). Options only — changing them changes
 * no workflow command, so histories still replay.
 */
function stageOptions(config: Config, stage: StageName): ActivityOptions {
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

function stageActivities(config: Config, stage: StageName) {
  return proxyActivities<Activities>(stageOptions(config, stage));
}

// ---- stage workflows ---------------------------------------------------------------------------------------

/** Used when a config from before `temporal.max_parallel_activities` existed reaches the new code. */
const DEFAULT_MAX_PARALLEL = 64;

/**
 * `task` on every item, at most `limit` running at once (a sliding window: a lane takes the next item as
 * soon as its last one finished); results in item order. Deterministic: workflow promises resolve in
 * history order.
 */
async function mapWithWindow<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}

/**
 * mapWithWindow whose limit may grow while it runs: `grow()`, after `limit()` went up, spawns the extra lanes at
 * once (each takes the next item); `done()` resolves when every lane has run dry. While the limit stays put it
 * issues exactly mapWithWindow's commands, in the same order.
 */
function growingWindow<T>(items: readonly T[], limit: () => number, task: (item: T) => Promise<void>): { grow(): void; done(): Promise<void> } {
  let next = 0;
  let active = 0;
  const lanes: Promise<void>[] = [];
  const lane = async (): Promise<void> => {
    active++;
    try {
      while (next < items.length) await task(items[next++]);
    } finally {
      active--;
    }
  };
  const grow = (): void => {
    while (active < Math.max(1, Math.floor(limit())) && next < items.length) lanes.push(lane());
  };
  const done = async (): Promise<void> => {
    grow();
    // Lanes a signal adds while we wait join the wait.
    for (let waited = -1; waited < lanes.length; ) {
      waited = lanes.length;
      await Promise.all(lanes);
    }
  };
  return { grow, done };
}

export async function buildWorkflow(input: StageInput): Promise<BuildResult> {
  const p = trackProgress('build');
  const acts = stageActivities(input.config, 'build');
  setStep(p, 'corpus', 0, 2);
  const corpus = await acts.buildCorpus(input);
  p.results.corpus = corpus;
  // Embedding in shards on every CPU worker, then one assemble step. Histories recorded before it replay
  // the single buildIndex activity.
  const index = patched('sharded-build') ? await shardedIndex(input, acts, p) : await singleIndex(input, acts, p);
  p.results.index = index;
  setStep(p, 'done', 2, 2);
  return { corpus, index };
}

type StageActivities = ReturnType<typeof stageActivities>;

async function singleIndex(input: StageInput, acts: StageActivities, p: WorkflowProgress): Promise<IndexResult> {
  setStep(p, 'embed+index', 1, 2);
  return acts.buildIndex(input);
}

/** Plan the shards, embed them (at most max_parallel_activities in flight), assemble the index from the parts. */
async function shardedIndex(input: StageInput, acts: StageActivities, p: WorkflowProgress): Promise<IndexResult> {
  setStep(p, 'embed:plan', 1, 2);
  const plan = await acts.planIndexShards(input);
  if (plan.reused) return plan.reused;
  let finished = 0;
  setStep(p, 'embed', 0, plan.shards.length, 'shards');
  await mapWithWindow(plan.shards, input.config.temporal.max_parallel_activities ?? DEFAULT_MAX_PARALLEL, async (shard) => {
    await acts.embedIndexShard({ input, shard });
    setStep(p, 'embed', ++finished, plan.shards.length, 'shards');
  });
  setStep(p, 'index', plan.shards.length, plan.shards.length, 'shards');
  return acts.assembleIndex({ input, plan });
}

export async function exportWorkflow(input: StageInput): Promise<ExportResult> {
  const p = trackProgress('export');
  const acts = stageActivities(input.config, 'export');
  setStep(p, 'plan', 0, 1);
  const plan = await acts.planExport(input);
  const planSummary = { datasets: plan.datasets.map((d) => ({ dataset: d.dataset, samples: d.samples, shards: d.shards.length })) };
  p.results.plan = planSummary;
  const shards = plan.datasets.flatMap((d) => d.shards);
  let finished = 0;
  const lines = { done: 0, total: plan.datasets.reduce((a, d) => a + d.samples, 0) };
  p.results.lines = lines;
  setStep(p, 'shards', 0, shards.length, 'shards');
  // Shards fan out to every worker polling the export queue; merged afterwards in a fixed order.
  const exportOne = async (shard: (typeof shards)[number]) => {
    const r = await acts.exportShard({ input, shard });
    finished++;
    lines.done += r.records;
    setStep(p, 'shards', finished, shards.length, 'shards');
    return r;
  };
  // At most max_parallel_activities shards in flight: thousands of pending activities in one workflow
  // bloat its history and mutable state. Histories recorded before the window replay the old fan-out.
  const results = patched('bounded-export-fanout')
    ? await mapWithWindow(shards, input.config.temporal.max_parallel_activities ?? DEFAULT_MAX_PARALLEL, exportOne)
    : await Promise.all(shards.map(exportOne));
  setStep(p, 'merge', shards.length, shards.length, 'shards');
  const merged = await acts.mergeExport({ input, plan });
  p.results.merged = merged;
  setStep(p, 'done', shards.length, shards.length, 'shards');
  return { plan: planSummary, shards: results.length, fallbacks: results.reduce((s, r) => s + r.fallbacks, 0), merged };
}

export async function inferWorkflow(input: StageInput): Promise<InferResult> {
  const p = trackProgress('infer');
  const acts = stageActivities(input.config, 'infer');
  if (input.options.importFile) {
    setStep(p, 'import', 0, 1);
    const imported = await acts.importCorrections(input);
    setStep(p, 'done', 1, 1);
    return { imported };
  }
  // Shards on every GPU worker (histories from before it run one activity per arm, below).
  if (patched('sharded-infer')) return shardedInfer(input, p, acts);
  // Study arms in order (without `study:`: rag and zero_shot, as the histories recorded); `condition` = arm name.
  const arms = armNames(input.config, input.options);
  const out: Record<string, ConditionResult> = {};
  let i = 0;
  for (const arm of arms) {
    setStep(p, `infer:${arm}`, i, arms.length, 'conditions');
    out[arm] = await acts.inferCondition({ input, condition: arm });
    p.results[arm] = out[arm];
    i++;
  }
  setStep(p, 'done', i, arms.length, 'conditions');
  return out;
}

/**
 * Plan, then one child workflow per arm (`<infer id>-<arm>`) running that arm's shards. Since `infer-pool`, all
 * arms' shards share one pool of `temporal.max_parallel_activities` lanes (see pooledArms); histories from before
 * it ran every arm at once with a fixed share of the bound each (fixedWindowArms).
 */
async function shardedInfer(input: StageInput, p: WorkflowProgress, acts: ReturnType<typeof stageActivities>): Promise<InferResult> {
  setStep(p, 'plan', 0, 1);
  const arms = await acts.planInfer(input);
  const parent = workflowInfo().workflowId;
  p.results.arms = Object.fromEntries(arms.map((a) => [a.arm, { workflowId: `${parent}-${a.arm}`, lines: a.lines, shards: a.shards }]));
  const out: Exclude<InferResult, { imported: unknown }> = {};
  let finished = 0;
  setStep(p, 'arms', 0, arms.length, 'arms');
  const onDone = (arm: string, r: ConditionResult): void => {
    out[arm] = r;
    p.results[arm] = r;
    setStep(p, 'arms', ++finished, arms.length, 'arms');
  };
  if (patched('infer-pool')) await pooledArms(input, arms, onDone);
  else await fixedWindowArms(input, arms, onDone);
  setStep(p, 'done', arms.length, arms.length, 'arms');
  return out;
}

/** Before `infer-pool`: every arm's child at once, each with a fixed window of floor(bound / arms), at least 1. */
async function fixedWindowArms(input: StageInput, arms: ArmPlan[], onDone: (arm: string, r: ConditionResult) => void): Promise<void> {
  const window = Math.max(1, Math.floor((input.config.temporal.max_parallel_activities ?? DEFAULT_MAX_PARALLEL) / Math.max(1, arms.length)));
  const parent = workflowInfo().workflowId;
  await Promise.all(
    arms.map(async (arm) => {
      const args: InferArmInput = { input, arm, window, from: 0, acc: emptyTotals() };
      onDone(arm.arm, await executeChild(inferArmWorkflow, { workflowId: `${parent}-${arm.arm}`, args: [args], ...childLabels('infer') }));
    }),
  );
}

/** An arm in the pool: its lanes (the window it was started with or signalled) and its child, once started. */
interface PoolArm {
  arm: ArmPlan;
  window: number;
  child?: ChildWorkflowHandle<typeof inferArmWorkflow>;
}

type ArmOutcome = { arm: string; result: ConditionResult } | { arm: string; error: unknown };

/**
 * Hand `free` lanes out one at a time, round robin in arm order, to arms whose window is still below their shard
 * count (more lanes than shards would sit idle). Returns the lanes nobody can use.
 */
function shareLanes(free: number, arms: readonly PoolArm[]): number {
  for (let gave = true; free > 0 && gave; ) {
    gave = false;
    for (const a of arms) {
      if (free > 0 && a.window < a.arm.shards) {
        a.window++;
        free--;
        gave = true;
      }
    }
  }
  return free;
}

/**
 * All arms' shards in one pool of `temporal.max_parallel_activities` lanes, a lane being one inferShard activity
 * in flight. At most that many arm children run at once (queued arms wait); the lanes are shared out among the
 * running children as their windows. When a child finishes, its lanes start the next queued arm, and the rest go
 * to the children still running (the `setWindow` signal: the child spawns the extra lanes at once), so the tail of
 * a study keeps every lane busy. The windows never add up to more than the bound, and a window only grows, so a
 * child never has more shards in flight than the parent counts for it: the bound holds at every moment.
 */
async function pooledArms(input: StageInput, arms: ArmPlan[], onDone: (arm: string, r: ConditionResult) => void): Promise<void> {
  const parent = workflowInfo().workflowId;
  const queued: PoolArm[] = arms.map((arm) => ({ arm, window: 0 }));
  const running: PoolArm[] = [];
  const outcomes = new Map<string, Promise<ArmOutcome>>();
  let free = Math.max(1, Math.floor(input.config.temporal.max_parallel_activities ?? DEFAULT_MAX_PARALLEL));
  const rebalance = async (): Promise<void> => {
    const before = running.map((a) => a.window);
    const starting: PoolArm[] = [];
    for (; free > 0 && queued.length; free--) starting.push(Object.assign(queued.shift()!, { window: 1 }));
    running.push(...starting);
    free = shareLanes(free, running);
    // All starts in one workflow task, like the children before the pool.
    await Promise.all(
      starting.map(async (a) => {
        const args: InferArmInput = { input, arm: a.arm, window: a.window, from: 0, acc: emptyTotals() };
        a.child = await startChild(inferArmWorkflow, { workflowId: `${parent}-${a.arm.arm}`, args: [args], ...childLabels('infer') });
        outcomes.set(a.arm.arm, a.child.result().then((result): ArmOutcome => ({ arm: a.arm.arm, result }), (error: unknown): ArmOutcome => ({ arm: a.arm.arm, error })));
      }),
    );
    // A child that finished before the signal reached it gives its lanes back when the parent sees it finish.
    before.forEach((w, i) => {
      if (running[i].window > w) void running[i].child!.signal(setWindowSignal, running[i].window).catch(() => undefined);
    });
  };
  await rebalance();
  while (outcomes.size > 0) {
    const done = await Promise.race(outcomes.values());
    outcomes.delete(done.arm);
    if ('error' in done) throw done.error;
    const i = running.findIndex((a) => a.arm.arm === done.arm);
    free += running[i].window;
    running.splice(i, 1);
    onDone(done.arm, done.result);
    await rebalance();
  }
}

/** What an arm's finished shards add up to, carried across continue-as-new. */
export interface ArmTotals {
  lines: number;
  shards: number;
  startedAt: string;
  counts: Omit<ConditionResult, 'condition' | 'output' | 'skipped'>;
}

export interface InferArmInput {
  input: StageInput;
  arm: ArmPlan;
  /** Shards in flight at once; the pool's `setWindow` signal raises it, and it carries over continue-as-new. */
  window: number;
  /** Index of the first shard this run executes (runs continue as new after `infer.shards_per_run`). */
  from: number;
  acc: ArmTotals;
}

function emptyTotals(): ArmTotals {
  const counts = { model: '', written: 0, skippedExisting: 0, succeeded: 0, failed: 0, failuresByReason: {}, promptTypes: {}, promptTokens: 0, completionTokens: 0, elapsedMs: 0 };
  return { lines: 0, shards: 0, startedAt: nowIso(), counts };
}

function addShard(acc: ArmTotals, r: ShardResult): void {
  const c = acc.counts;
  acc.lines += r.lines;
  acc.shards++;
  c.model ||= r.model;
  for (const k of ['written', 'skippedExisting', 'succeeded', 'failed', 'promptTokens', 'completionTokens'] as const) c[k] += r[k];
  for (const [k, n] of Object.entries(r.failuresByReason)) c.failuresByReason[k] = (c.failuresByReason[k] ?? 0) + n;
  for (const [k, n] of Object.entries(r.promptTypes)) c.promptTypes[k] = (c.promptTypes[k] ?? 0) + n;
  if (r.load) c.load = busier(c.load, r.load);
}

/** Every shard of an arm, dataset by dataset (the plan's order). */
function shardRefs(arm: ArmPlan): ShardRef[] {
  return arm.plan.datasets.flatMap((d) => Array.from({ length: Math.ceil(d.lines / arm.shardSize) }, (_, index) => ({ dataset: d.dataset, index })));
}

/**
 * One arm of the sharded infer: its shards through a window, `infer.shards_per_run` per run (then continue as
 * new, so the history stays far below Temporal's limits), then the merge into the arm's corrections.jsonl.
 */
export async function inferArmWorkflow(a: InferArmInput): Promise<ConditionResult> {
  const p = trackProgress('infer');
  const acts = stageActivities(a.input.config, 'infer');
  const all = shardRefs(a.arm);
  const batch = all.slice(a.from, a.from + (a.input.config.infer.shards_per_run ?? 1000));
  const lines = { done: a.acc.lines, total: a.arm.lines };
  Object.assign(p.results, { arm: a.arm.arm, lines, linesAtRunStart: a.acc.lines });
  setStep(p, 'shards', a.from, all.length, 'shards');
  let window = a.window;
  const pool = growingWindow(batch, () => window, async (shard) => {
    addShard(a.acc, await acts.inferShard({ input: a.input, arm: a.arm, shard }));
    lines.done = a.acc.lines;
    setStep(p, 'shards', a.acc.shards, all.length, 'shards');
  });
  // The infer pool hands this arm more lanes when another arm finishes (never fewer). Without a signal this runs
  // exactly the commands of the fixed window it replaced, so histories from before replay unchanged.
  setHandler(setWindowSignal, (w) => {
    window = Math.max(window, w);
    pool.grow();
  });
  try {
    await pool.done();
  } catch (err) {
    // Failed for good (a shard's outage outlasted its budget, bad input): keep what succeeded where analyze reads it.
    if (!isCancellation(err)) await acts.mergeInferArm({ input: a.input, arm: a.arm, partial: true }).catch(() => undefined);
    throw err;
  }
  if (a.from + batch.length < all.length) return continueAsNew<typeof inferArmWorkflow>({ ...a, window, from: a.from + batch.length });
  setStep(p, 'merge', all.length, all.length, 'shards');
  const merged = await acts.mergeInferArm({ input: a.input, arm: a.arm });
  setStep(p, 'done', all.length, all.length, 'shards');
  const elapsedMs = Date.now() - Date.parse(a.acc.startedAt);
  return { condition: a.arm.arm, output: merged.output, ...a.acc.counts, elapsedMs, skipped: merged.skipped };
}

export async function analyzeWorkflow(input: StageInput): Promise<AnalyzeResult> {
  const p = trackProgress('analyze');
  const acts = stageActivities(input.config, 'analyze');
  setStep(p, 'analyze', 0, 1);
  const result = await acts.analyzeResults(input);
  setStep(p, 'done', 1, 1);
  return result;
}

const STAGE_WORKFLOWS = {
  build: buildWorkflow,
  export: exportWorkflow,
  infer: inferWorkflow,
  analyze: analyzeWorkflow,
} as const;

/** Run one stage as a child workflow with its own id (`phase5-<run>-<stage>`) and keep its typed result. */
async function runStageChild<S extends StageName>(results: Phase5Result, stage: S, input: StageInput): Promise<void> {
  const workflow = STAGE_WORKFLOWS[stage] as (input: StageInput) => Promise<NonNullable<Phase5Result[S]>>;
  results[stage] = await executeChild(workflow, { workflowId: stageWorkflowId(input.run, stage), args: [input], ...childLabels(stage) });
}

/**
 * The study's search attributes and memo for a stage child, with Phase5Stage set to the stage: the SDK does not
 * copy them to children, and a stage must be findable by run like the study. Only when the study carries them
 * (it was started by the CLI on a cluster that has them), so studies without labels start children as before.
 * An attribute of the child-start command, not a new command: replay is unaffected (test/replay checks).
 */
function childLabels(stage: StageName): { typedSearchAttributes?: TypedSearchAttributes; memo?: Record<string, unknown> } {
  const info = workflowInfo();
  if (info.typedSearchAttributes.get(RUN_ATTR) === undefined) return {};
  return { typedSearchAttributes: info.typedSearchAttributes.updateCopy([{ key: STAGE_ATTR, value: stage }]), memo: info.memo };
}

/** The whole study: build → export → infer → analyze, each stage a child workflow with its own id. */
export async function phase5Workflow(input: Phase5Input): Promise<Phase5Result> {
  const p = trackProgress(null);
  const wanted = new Set(input.stages ?? ALL_STAGES);
  const forced = new Set(input.forceStages ?? []);
  for (const s of ALL_STAGES) p.stages[s] = wanted.has(s) ? 'pending' : 'skipped';
  const results: Phase5Result = {};
  let i = 0;
  for (const stage of ALL_STAGES) {
    if (!wanted.has(stage)) continue;
    p.stage = stage;
    p.stages[stage] = 'running';
    setStep(p, stage, i, wanted.size, 'stages');
    const childInput: StageInput = { run: input.run, config: input.config, options: input.options, force: forced.has(stage) };
    try {
      await runStageChild(results, stage, childInput);
    } catch (err) {
      p.stages[stage] = isCancellation(err) ? 'pending' : 'failed';
      throw err;
    }
    p.stages[stage] = 'done';
    Object.assign(p.results, { [stage]: results[stage] } as Phase5Result);
    i++;
  }
  p.stage = null;
  setStep(p, 'done', i, wanted.size, 'stages');
  return results;
}

// ---- doctor ------------------------------------------------------------------------------------------------

export interface DoctorInput {
  queues: string[];
  resultsDir: string;
  /** How long to wait for a worker to pick up the check on each queue. */
  pickupTimeout: Duration;
}

export interface DoctorQueueResult {
  queue: string;
  ok: boolean;
  report?: DoctorReport;
  error?: string;
}

/** A real round trip: one environment check activity on each task queue. */
export async function doctorWorkflow(input: DoctorInput): Promise<DoctorQueueResult[]> {
  const p = trackProgress('doctor');
  setStep(p, 'checks', 0, input.queues.length, 'queues');
  let done = 0;
  return Promise.all(
    input.queues.map(async (queue): Promise<DoctorQueueResult> => {
      const acts = proxyActivities<Activities>({
        taskQueue: queue,
        scheduleToStartTimeout: input.pickupTimeout,
        startToCloseTimeout: '2m',
        retry: { maximumAttempts: 1 },
      });
      try {
        const report = await acts.checkEnvironment({ queue, resultsDir: input.resultsDir });
        return { queue, ok: report.checks.every((c) => c.ok), report };
      } catch (err) {
        if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure) {
          return { queue, ok: false, error: `no worker picked up the check within ${String(input.pickupTimeout)} (is a worker polling ${queue}?)` };
        }
        if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
          return { queue, ok: false, error: err.cause.message };
        }
        throw err;
      } finally {
        done++;
        setStep(p, 'checks', done, input.queues.length, 'queues');
      }
    }),
  );
}
