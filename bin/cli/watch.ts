/**
 * Follow a workflow until it finishes: a progress bar in a terminal (log lines otherwise), fed by the
 * workflow's `progress` query and the running activity's last heartbeat. For the whole-study workflow it
 * follows the child workflow of the current stage.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import { createProgress, type Progress as Bar } from '../../src/util/progress';
import { workflowStatus, type StatusView } from '../../src/temporal/client';
import { stageWorkflowId } from '../../src/temporal/types';

function formatEta(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '?';
  if (s < 90) return `${Math.round(s)}s`;
  if (s < 5400) return `${Math.round(s / 60)}m`;
  return `${(s / 3600).toFixed(1)}h`;
}

/** One line describing where a workflow is. */
export function describeStatus(v: StatusView): string {
  const parts = [`${v.workflowId}: ${v.status}`];
  if (v.progress) parts.push(`stage ${v.progress.stage ?? '-'}, step ${v.progress.step} ${v.progress.done}/${v.progress.total} ${v.progress.unit}`);
  const hb = v.activity?.heartbeat;
  if (v.activity) parts.push(`activity ${v.activity.type} (attempt ${v.activity.attempt})${hb ? ` ${hb.step} ${hb.done}/${hb.total} ${hb.unit}` : ''}`);
  if (v.rate !== null) parts.push(`${v.rate.toFixed(1)}/s, ETA ${formatEta(v.etaSeconds)}`);
  if (v.activity?.lastFailure) parts.push(`last failure: ${v.activity.lastFailure}`);
  return parts.join(' | ');
}

export async function watchWorkflow<W extends Workflow>(
  client: Client,
  handle: WorkflowHandle<W>,
  run: string,
  opts: { intervalMs?: number; quiet?: boolean } = {},
): Promise<WorkflowResultType<W>> {
  const result = handle.result();
  if (opts.quiet) return result;
  let settled = false;
  void result.then(() => (settled = true), () => (settled = true));
  let bar: Bar | null = null;
  let barKey = '';
  const tty = process.stderr.isTTY && !process.env.CI;
  let lastKey = '';
  let lastPrinted = 0;
  try {
    while (!settled) {
      await Promise.race([result.catch(() => undefined), new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000))]);
      if (settled) break;
      let view: StatusView;
      try {
        view = await workflowStatus(client, handle.workflowId);
        const stage = view.progress?.stage;
        if (view.progress?.workflow === 'phase5Workflow' && stage && stage !== 'doctor') {
          view = await workflowStatus(client, stageWorkflowId(run, stage));
        }
      } catch {
        continue;
      }
      const hb = view.activity?.heartbeat;
      if (tty && hb && hb.total > 0) {
        const key = `${view.workflowId}/${view.activity?.type}/${hb.step}`;
        if (key !== barKey) {
          bar?.stop();
          bar = createProgress({ label: `${view.progress?.stage ?? ''} ${hb.step}`.trim(), total: hb.total, start: hb.done, mode: 'bar' });
          barKey = key;
        }
        bar?.update(hb.done);
      } else {
        // Log mode: a line when the position changes, else every 15 s (rate and ETA drift every poll).
        const key = `${view.status}|${view.progress?.step}|${view.progress?.done}|${hb?.step}|${hb?.done}|${view.activity?.attempt}`;
        if (key !== lastKey || Date.now() - lastPrinted > 15000) {
          console.error(describeStatus(view));
          lastKey = key;
          lastPrinted = Date.now();
        }
      }
    }
  } finally {
    bar?.stop();
  }
  return result;
}
