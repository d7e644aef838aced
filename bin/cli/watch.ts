/**
 * Follow a workflow until it finishes: a progress bar in a terminal, plain lines otherwise (`export started`,
 * then `export 1,200/5,092 lines · 82 lines/s · ETA 47 s` at most every 10 s and once per change of the count), fed by the workflow's
 * `progress` query and the heartbeats of its running activities (summed across an export's shards). For the
 * whole-study workflow it follows the child workflow of the current stage.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import { createProgress, progressLine, type Progress as Bar } from '../../src/util/progress';
import { flushLogs } from '../../src/util/log';
import { workflowStatus, type StatusView } from '../../src/temporal/client';
import { stageWorkflowId } from '../../src/temporal/types';
import { failureNote, failureOf, retryingOf, retryNote, ServerNotes } from './pending';
import { loadSuffix } from './llm-load';

/** What the stage is retrying and what already failed in it: ` · retrying (attempt 3): … · failed: arm rag: …`. */
export function problemNote(v: StatusView): string {
  return retryNote(retryingOf(v)) + failureNote(failureOf(v));
}

/** The stage's position in one line: `export 1,200/5,092 lines · 82 lines/s · ETA 47 s`. */
export function progressOf(v: StatusView): string | null {
  const label = v.progress?.stage ?? v.activity?.type ?? 'progress';
  const note = problemNote(v);
  if (v.work && v.work.total > 0) return progressLine(label, v.work.done, v.work.total, v.work.unit, v.rate, v.etaSeconds) + note;
  if (v.progress && v.progress.total > 0)
    return progressLine(`${label} ${v.progress.step}`, v.progress.done, v.progress.total, v.progress.unit, null, null) + note;
  return note ? `${label}${note}` : null;
}

/** What the stage has done, without rate or ETA: the count the plain lines print once per change. */
function positionOf(v: StatusView): string {
  const w = v.work;
  const p = v.progress;
  return `${p?.stage ?? ''}|${p?.step ?? ''}|${p?.done ?? ''}/${p?.total ?? ''}|${w ? `${w.done}/${w.total} ${w.unit}` : ''}`;
}

/** One line describing where a workflow is. */
export function describeStatus(v: StatusView): string {
  const parts = [`${v.workflowId}: ${v.status}`];
  if (v.progress)
    parts.push(`stage ${v.progress.stage ?? '-'}, step ${v.progress.step} ${v.progress.done}/${v.progress.total} ${v.progress.unit}`);
  const running = progressOf(v);
  if (running && v.work) parts.push(running);
  if (v.activities.length > 1) parts.push(`${v.activities.length} activities running`);
  else if (v.activity) parts.push(`activity ${v.activity.type} (attempt ${v.activity.attempt})`);
  const retrying = retryingOf(v);
  const failure = v.activities.find((a) => a.lastFailure)?.lastFailure;
  if (retrying) parts.push(retryNote(retrying).replace(/^ · /, ''));
  else if (failure) parts.push(`last failure: ${failure}`);
  const failed = failureOf(v);
  if (failed) parts.push(`failed: ${failed}`);
  return parts.join(' | ');
}

/** Sharded infer: one line per arm — `arm rag 1,200/5,092 lines · 82 lines/s · ETA 47 s · workers 41@gpu-a, 97@gpu-b`. */
export function describeArms(v: StatusView): string[] {
  return (v.arms ?? []).map((a) => {
    const line = progressLine(`arm ${a.arm}`, a.done, a.total, 'lines', a.rate, a.etaSeconds);
    return `${line} · ${a.status === 'RUNNING' ? `workers ${a.workers.join(', ') || '-'}` : a.status.toLowerCase()}${loadSuffix(a.load)}${retryNote(a.retrying)}${failureNote(a.failure)}`;
  });
}

/** Plain progress lines for logs and pipes: the stage when it starts, its position at most every `everyMs`. */
export class ProgressLines {
  private stage = '';
  private last = -Infinity;
  private retrying = '';
  private position = '';
  constructor(
    private readonly print: (line: string) => void,
    private readonly everyMs = 10_000,
    private readonly now = () => Date.now(),
  ) {}

  show(v: StatusView): void {
    const stage = v.progress?.stage ?? '';
    if (stage && stage !== this.stage) {
      flushLogs();
      this.print(`${stage} started (${v.workflowId})`);
      this.stage = stage;
    }
    const line = progressOf(v);
    // A new failure is shown at once, not at the next tick: it is why the count does not move.
    const retrying = problemNote(v);
    const news = retrying !== '' && retrying !== this.retrying;
    this.retrying = retrying;
    if (!line || (!news && this.now() - this.last < this.everyMs)) return;
    // Once per change of the position: a count that has not moved is not printed again (a new rate or ETA alone is no news).
    const position = positionOf(v) + retrying;
    if (!news && position === this.position) return;
    flushLogs();
    this.print(line);
    this.last = this.now();
    this.position = position;
  }
}

async function currentView(client: Client, workflowId: string, run: string): Promise<StatusView | null> {
  try {
    const view = await workflowStatus(client, workflowId);
    const stage = view.progress?.stage;
    if (view.progress?.workflow === 'phase5Workflow' && stage && stage !== 'doctor')
      return await workflowStatus(client, stageWorkflowId(run, stage));
    return view;
  } catch {
    return null;
  }
}

export async function watchWorkflow<W extends Workflow>(
  client: Client,
  handle: WorkflowHandle<W>,
  run: string,
  opts: { intervalMs?: number; quiet?: boolean; lineEveryMs?: number } = {},
): Promise<WorkflowResultType<W>> {
  const result = handle.result();
  if (opts.quiet) return result;
  let settled = false;
  void result.then(
    () => (settled = true),
    () => (settled = true),
  );
  let bar: Bar | null = null;
  let barKey = '';
  let shownNote = '';
  const tty = process.stderr.isTTY && !process.env.CI;
  const lines = new ProgressLines((l) => console.error(l), opts.lineEveryMs);
  const server = new ServerNotes((l) => (flushLogs(), console.error(l)));
  try {
    while (!settled) {
      await Promise.race([result.catch(() => undefined), new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000))]);
      if (settled) break;
      // A deadline, so a server that went away is said within seconds instead of after the client's retries.
      const view = await client.withDeadline(Date.now() + 3000, () => currentView(client, handle.workflowId, run)).catch(() => null);
      server.seen(view !== null);
      if (!view) continue;
      if (tty && view.work && view.work.total > 0) {
        const key = `${view.workflowId}/${view.progress?.step}`;
        if (key !== barKey) {
          bar?.stop();
          bar = createProgress({
            label: `${view.progress?.stage ?? ''} ${view.work.unit}`.trim(),
            total: view.work.total,
            start: view.work.done,
            mode: 'bar',
          });
          barKey = key;
        }
        bar?.update(view.work.done);
        const note = problemNote(view);
        if (note && note !== shownNote) console.error(`\n${view.progress?.stage ?? 'stage'}${note}`);
        shownNote = note;
      } else if (!tty) lines.show(view);
    }
  } finally {
    bar?.stop();
    flushLogs();
  }
  return result;
}
