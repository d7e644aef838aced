/**
 * A failed workflow, told in one line. Temporal reports an activity's error as a chain —
 * WorkflowFailedError → ChildWorkflowFailure (whole study) → ActivityFailure → ApplicationFailure — whose
 * outermost message is only "Workflow execution failed"; the user needs the innermost one (the file, the
 * setting, the fix). `--verbose` adds the chain, one line per level, and the root cause's stack.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TemporalFailure, TimeoutFailure } from '@temporalio/common';

/** A stage command's workflow failed; `cause` is what `handle.result()` threw. */
export class StageRunFailed extends Error {
  constructor(
    readonly command: string,
    readonly workflowId: string,
    readonly cause: unknown,
  ) {
    super(`${command} failed`);
    this.name = 'StageRunFailed';
  }
}

/** Hints for root causes whose message does not already name the fix (messages that do carry " — fix"). */
const HINTS: Record<string, string> = {
  JsonlParseError: 'fix or remove that line, then run the command again',
  DatasetLineError: 'fix or remove that line, then run the command again',
  TimeoutFailure: 'is a worker polling the queue? `phase5 doctor` checks',
};

/** The cause chain, outermost first (bounded, cycle-safe). */
export function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let cur = err;
    cur !== undefined && cur !== null && !chain.includes(cur) && chain.length < 32;
    cur = (cur as { cause?: unknown }).cause
  ) {
    chain.push(cur);
  }
  return chain;
}

/** True when `err` is, or wraps, a failure reported by Temporal. */
export function isWorkflowFailure(err: unknown): boolean {
  return err instanceof StageRunFailed || err instanceof WorkflowFailedError || err instanceof TemporalFailure;
}

/** One line describing one level of the chain. */
export function describeLevel(level: unknown): string {
  if (level instanceof StageRunFailed) return `${level.command}: workflow ${level.workflowId} failed`;
  if (level instanceof WorkflowFailedError) return `WorkflowFailedError: ${level.message} (retry state ${level.retryState ?? '-'})`;
  if (level instanceof ChildWorkflowFailure)
    return `ChildWorkflowFailure: ${level.workflowType} ${level.execution.workflowId} failed (retry state ${level.retryState ?? '-'})`;
  if (level instanceof ActivityFailure)
    return `ActivityFailure: activity ${level.activityType} failed (retry state ${level.retryState ?? '-'})`;
  if (level instanceof ApplicationFailure)
    return `ApplicationFailure ${level.type ?? 'Error'}${level.nonRetryable ? ' (non-retryable)' : ''}: ${level.message}`;
  if (level instanceof TimeoutFailure) return `TimeoutFailure: ${level.timeoutType ?? 'timeout'}`;
  const e = level as Error;
  return `${e?.name ?? 'Error'}: ${e?.message ?? String(level)}`;
}

/** The stage that failed: the innermost child workflow (whole study) or else the command that was run. */
function failedStage(chain: unknown[], command: string): string {
  const child = chain.filter((l): l is ChildWorkflowFailure => l instanceof ChildWorkflowFailure).at(-1);
  if (!child) return command;
  // An arm of the sharded infer runs as `<infer id>-<arm>`: name the stage and the arm.
  const arm = child.workflowType === 'inferArmWorkflow' ? /-infer-(.+)$/.exec(child.execution.workflowId ?? '')?.[1] : undefined;
  return arm ? `infer (arm ${arm})` : child.workflowType.replace(/Workflow$/, '');
}

/** The root cause's message, with the activity that timed out when the root is a timeout. */
function rootMessage(chain: unknown[]): { message: string; hintKey: string } {
  const root = chain.at(-1);
  const activity = chain.filter((l): l is ActivityFailure => l instanceof ActivityFailure).at(-1);
  if (root instanceof TimeoutFailure) {
    return {
      message: `${activity ? `activity ${activity.activityType} ` : ''}timed out (${root.timeoutType ?? 'timeout'})`,
      hintKey: 'TimeoutFailure',
    };
  }
  const e = root as Error;
  const message = (e?.message || String(root)).replace(/\s*\n\s*/g, ' '); // one line, even for multi-line messages
  const retried = activity?.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? ' (retries exhausted)' : '';
  return { message: message + retried, hintKey: root instanceof ApplicationFailure ? (root.type ?? '') : (e?.name ?? '') };
}

/**
 * The lines to print for a failed workflow: `phase5: <stage> failed: <root cause>[ — hint]`, and with
 * `verbose` the chain (one line per level) and the root cause's stack.
 */
export function formatWorkflowFailure(err: unknown, verbose: boolean, command = 'workflow'): string[] {
  const chain = causeChain(err);
  const { message, hintKey } = rootMessage(chain);
  const hint = HINTS[hintKey] && !message.includes(' — ') ? ` — ${HINTS[hintKey]}` : '';
  const cmd = err instanceof StageRunFailed ? err.command : command;
  const lines = [`phase5: ${failedStage(chain, cmd)} failed: ${message}${hint}`];
  if (!verbose) return lines;
  lines.push('failure chain:');
  chain.forEach((level, i) => lines.push(`  ${i + 1}. ${describeLevel(level)}`));
  const stack = (chain.at(-1) as Error)?.stack;
  if (stack) lines.push(stack);
  return lines;
}
