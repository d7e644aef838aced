/**
 * `phase5 runs`: the phase5 workflows on the server, newest first, found through the Phase5* search
 * attributes the CLI starts them with (src/temporal/search-attributes.ts). Progress comes from the
 * workflow's `progress` query while it runs (a query nobody answers within a few seconds shows "-").
 */
import type { Command } from 'commander';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { resolveConfig, UsageError, type GlobalFlags } from '../options';
import { connectClient, workflowStatus } from '../../../src/temporal/client';
import { worstRetrying, type RetryingActivity } from '../../../src/temporal/retrying';
import { retryingOf } from '../pending';
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

/**
 * What a running workflow retries (null when nothing, or when it cannot be told within the deadline). A study
 * (`phase5-<run>`, stage `run`) retries what any of its running stage workflows retries (their arms included).
 */
async function retryingIn(client: Client, row: RunRow, timeoutMs: number): Promise<RetryingActivity | null> {
  try {
    return await client.withDeadline(Date.now() + timeoutMs, async () => {
      const own = retryingOf(await workflowStatus(client, row.workflowId));
      if (row.stage !== 'run') return own;
      const children = await runningChildren(client, row.workflowId);
      const theirs = await Promise.all(children.map((id) => workflowStatus(client, id).then(retryingOf, () => null)));
      return worstRetrying([own, ...theirs]);
    });
  } catch {
    return null;
  }
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
    newest
      .filter((r) => r.state === 'RUNNING')
      .map(async (r) => {
        [r.progress, r.retrying] = await Promise.all([
          progressOf(client, r.workflowId, queryTimeoutMs),
          retryingIn(client, r, queryTimeoutMs),
        ]);
      }),
  );
  return newest;
}

export function formatRuns(rows: RunRow[]): string[] {
  if (rows.length === 0) return ['(no phase5 runs match)'];
  const table = rows.map((r) => [
    r.workflowId,
    r.stage ?? '-',
    r.retrying ? `${r.state} (retrying, attempt ${r.retrying.attempt})` : r.state,
    r.progress ? `${r.progress.done}/${r.progress.total}${r.progress.unit ? ` ${r.progress.unit}` : ''}` : '-',
    r.startTime.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
  ]);
  const header = ['WORKFLOW ID', 'STAGE', 'STATE', 'PROGRESS', 'STARTED'];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const lines = [header, ...table].map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
  // The reason under the run that retries it, once per distinct failure.
  const reasons = [...new Set(rows.filter((r) => r.retrying).map((r) => r.retrying!.failure))];
  return [...lines, ...reasons.map((f) => `retrying: ${f}`)];
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
