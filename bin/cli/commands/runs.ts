/**
 * `phase5 runs`: the phase5 workflows on the server, newest first, found through the Phase5* search
 * attributes the CLI starts them with (src/temporal/search-attributes.ts). Progress comes from the
 * workflow's `progress` query while it runs (a query nobody answers within a few seconds shows "-").
 */
import type { Command } from 'commander';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { resolveConfig, UsageError, type GlobalFlags } from '../options';
import { connectClient, workflowStatus, type StatusView } from '../../../src/temporal/client';
import { worstRetrying, type RetryingActivity } from '../../../src/temporal/retrying';
import { closedFailure, failureOf, retryingOf } from '../pending';
import { CONFIG_HASH_ATTR, RUN_ATTR, STAGE_ATTR } from '../../../src/temporal/search-attributes';
import type { Progress } from '../../../src/temporal/types';

export interface RunRow {
  workflowId: string;
  run: string | null;
  stage: string | null;
  configHash: string | null;
  state: string;
  progress: { done: number; total: number; unit: string } | null;
  /** A running run's most-retried activity (its own or an arm's): attempt and last failure. */
  retrying?: RetryingActivity | null;
  /** Why it failed: a closed run's root cause, or a failure inside a running one (an arm that failed for good). */
  failure?: string | null;
  startTime: string;
}

/** The visibility query for the filters (values quoted; a `"` or `\` in one is a usage error). */
export function runsQuery(filters: { run?: string; configHash?: string }): string {
  const clauses = ['Phase5Stage IN ("run", "build", "export", "infer", "analyze")'];
  for (const [attr, value] of [
    ['Phase5Run', filters.run],
    ['Phase5ConfigHash', filters.configHash],
  ] as const) {
    if (value === undefined) continue;
    if (/["\\]/.test(value)) throw new UsageError(`a filter value may not contain " or \\: ${value}`);
    clauses.push(`${attr} = "${value}"`);
  }
  return clauses.join(' AND ');
}

async function progressOf(client: Client, workflowId: string, timeoutMs: number): Promise<RunRow['progress']> {
  // A deadline on the call itself: a query no worker answers must not outlive the connection.
  try {
    const p = await client.withDeadline(Date.now() + timeoutMs, () => client.workflow.getHandle(workflowId).query<Progress>('progress'));
    return { done: p.done, total: p.total, unit: p.unit };
  } catch {
    return null;
  }
}

type Problems = Pick<RunRow, 'retrying' | 'failure'>;

const problemsOf = (v: StatusView): Problems => ({ retrying: retryingOf(v), failure: failureOf(v) });

/**
 * What a running workflow retries and what already failed in it (null when nothing, or when it cannot be told
 * within the deadline). A study (`phase5-<run>`, stage `run`) has the problems of its running stage workflows
 * (their arms included).
 */
async function problemsIn(client: Client, row: RunRow, timeoutMs: number): Promise<Problems> {
  try {
    return await client.withDeadline(Date.now() + timeoutMs, async () => {
      const own = problemsOf(await workflowStatus(client, row.workflowId));
      if (row.stage !== 'run') return own;
      const children = await runningChildren(client, row.workflowId);
      const theirs = await Promise.all(children.map((id) => workflowStatus(client, id).then(problemsOf, () => null)));
      const all = [own, ...theirs.filter((t): t is Problems => t !== null)];
      return { retrying: worstRetrying(all.map((p) => p.retrying)), failure: all.find((p) => p.failure)?.failure ?? null };
    });
  } catch {
    return { retrying: null, failure: null };
  }
}

/** A closed run's failure within the deadline (null when it did not fail or cannot be told). */
async function failureIn(client: Client, row: RunRow, timeoutMs: number): Promise<string | null> {
  return client
    .withDeadline(Date.now() + timeoutMs, () => closedFailure(client, row.workflowId, row.stage ?? 'workflow'))
    .catch(() => null);
}

/** The ids of a workflow's running child workflows (a study's stages), from its description. */
async function runningChildren(client: Client, workflowId: string): Promise<string[]> {
  const desc = await client.workflow.getHandle(workflowId).describe();
  return (desc.raw.pendingChildren ?? []).flatMap((c) => (c.workflowId ? [c.workflowId] : []));
}

function rowOf(info: WorkflowExecutionInfo): RunRow {
  const sa = info.typedSearchAttributes;
  return {
    workflowId: info.workflowId,
    run: sa.get(RUN_ATTR) ?? null,
    stage: sa.get(STAGE_ATTR) ?? null,
    configHash: sa.get(CONFIG_HASH_ATTR) ?? null,
    state: info.status.name,
    progress: null,
    startTime: info.startTime.toISOString(),
  };
}

/** The matching runs, newest first (at most `limit`), with progress for the running ones. */
export async function listRuns(client: Client, query: string, limit: number, queryTimeoutMs = 3000): Promise<RunRow[]> {
  const rows: RunRow[] = [];
  for await (const info of client.workflow.list({ query })) rows.push(rowOf(info));
  rows.sort((a, b) => (a.startTime < b.startTime ? 1 : a.startTime > b.startTime ? -1 : 0));
  const newest = rows.slice(0, limit);
  await Promise.all(
    newest.map(async (r) => {
      // Failed or timed out (a terminated or cancelled run was stopped by someone, or with its parent: no reason).
      if (r.state === 'FAILED' || r.state === 'TIMED_OUT') r.failure = await failureIn(client, r, queryTimeoutMs);
      if (r.state !== 'RUNNING') return;
      let problems: Problems;
      [r.progress, problems] = await Promise.all([progressOf(client, r.workflowId, queryTimeoutMs), problemsIn(client, r, queryTimeoutMs)]);
      Object.assign(r, problems);
    }),
  );
  return newest;
}

/** `RUNNING (retrying, attempt 3)`, `RUNNING (failing)` — an arm failed for good, the rest still ends — or the state. */
function stateOf(r: RunRow): string {
  const notes = [
    ...(r.retrying ? [`retrying, attempt ${r.retrying.attempt}`] : []),
    ...(r.failure && r.state === 'RUNNING' ? ['failing'] : []),
  ];
  return notes.length ? `${r.state} (${notes.join('; ')})` : r.state;
}

export function formatRuns(rows: RunRow[]): string[] {
  if (rows.length === 0) return ['(no phase5 runs match)'];
  const table = rows.map((r) => [
    r.workflowId,
    r.stage ?? '-',
    stateOf(r),
    r.progress ? `${r.progress.done}/${r.progress.total}${r.progress.unit ? ` ${r.progress.unit}` : ''}` : '-',
    r.startTime.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
  ]);
  const header = ['WORKFLOW ID', 'STAGE', 'STATE', 'PROGRESS', 'STARTED'];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const lines = [header, ...table].map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
  // The reasons under the table, once per distinct failure: what is retried, then what failed.
  const retrying = [...new Set(rows.filter((r) => r.retrying).map((r) => r.retrying!.failure))];
  const failed = [...new Set(rows.filter((r) => r.failure).map((r) => r.failure!))];
  return [...lines, ...retrying.map((f) => `retrying: ${f}`), ...failed.map((f) => `failed: ${f}`)];
}

export function registerRunsCommand(program: Command): void {
  program
    .command('runs')
    .description('list phase5 workflows (newest first) with stage, state, progress and start time; --run NAME filters by run name')
    .option('--config-hash <hash>', 'only runs with this identity hash (Phase5ConfigHash, the 8 hex digits of the id)')
    .option('--max <n>', 'at most this many rows', '50')
    .action(async (opts: { configHash?: string; max: string }, cmd: Command) => {
      // `--run NAME` is the global option: here it filters (Phase5Run = "NAME"); without it every run is listed.
      const flags = cmd.optsWithGlobals<GlobalFlags>();
      const { config } = resolveConfig(flags);
      const max = Number(opts.max);
      if (!Number.isInteger(max) || max < 1) throw new UsageError(`--max must be a positive integer, got "${opts.max}"`);
      const query = runsQuery({ run: flags.run, configHash: opts.configHash });
      const { client, connection } = await connectClient(config);
      try {
        const rows = await listRuns(client, query, max);
        if (flags.json)
          console.log(JSON.stringify(rows, null, 2)); // --json is a global flag
        else for (const line of formatRuns(rows)) console.log(line);
      } finally {
        await connection.close();
      }
    });
}
