/**
 * Unwrapping Temporal's failure chain for the CLI, on failure objects built the way the client SDK builds
 * them: WorkflowFailedError → (ChildWorkflowFailure) → ActivityFailure → ApplicationFailure / TimeoutFailure.
 * Without the unwrapping the user sees only "Workflow execution failed".
 */
import { expect } from 'chai';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TimeoutFailure } from '@temporalio/common';
import { causeChain, formatWorkflowFailure, StageRunFailed } from '../../bin/cli/errors';
import { reportError } from '../../bin/cli/main';

const MISMATCH =
  'index at /r/phase5/index.usearch was built with model="all-MiniLM", config says "e5-small" — rebuild with `phase5 build --force`';

function activityChain(
  root: Error,
  activityType = 'exportShard',
  retryState: 'NON_RETRYABLE_FAILURE' | 'MAXIMUM_ATTEMPTS_REACHED' = 'NON_RETRYABLE_FAILURE',
) {
  return new ActivityFailure('Activity task failed', activityType, '3', retryState, 'worker@host', root);
}

function studyFailure(root: Error): WorkflowFailedError {
  const child = new ChildWorkflowFailure(
    'default',
    { workflowId: 'phase5-default-3fa2c91b-export', runId: 'r1' },
    'exportWorkflow',
    'NON_RETRYABLE_FAILURE',
    activityChain(root),
  );
  return new WorkflowFailedError('Workflow execution failed', child, 'NON_RETRYABLE_FAILURE');
}

/** What reportError prints, line by line, and its exit code. */
function reported(err: unknown, verbose: boolean): { code: number; lines: string[] } {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(...args.map(String).join(' ').split('\n'));
  try {
    return { code: reportError(err, verbose), lines };
  } finally {
    console.error = original;
  }
}

describe('cli: failure chain → one line', () => {
  const root = ApplicationFailure.create({ type: 'IndexMismatchError', message: MISMATCH, nonRetryable: true });

  it('walks the chain outermost first to the root cause', () => {
    const chain = causeChain(studyFailure(root));
    expect(chain.map((l) => (l as Error).constructor.name)).to.deep.equal([
      'WorkflowFailedError',
      'ChildWorkflowFailure',
      'ActivityFailure',
      'ApplicationFailure',
    ]);
  });

  it('a whole-study failure prints the failed stage and the root cause in one line, exit 1', () => {
    const { code, lines } = reported(new StageRunFailed('run', 'phase5-default-3fa2c91b', studyFailure(root)), false);
    expect(code).to.equal(1);
    expect(lines).to.deep.equal([`phase5: export failed: ${MISMATCH}`]);
  });

  it('a stage command names its stage; a bare WorkflowFailedError is unwrapped too', () => {
    const direct = new WorkflowFailedError('Workflow execution failed', activityChain(root), 'NON_RETRYABLE_FAILURE');
    expect(reported(new StageRunFailed('export', 'phase5-x-export', direct), false).lines).to.deep.equal([
      `phase5: export failed: ${MISMATCH}`,
    ]);
    const bare = reported(direct, false).lines;
    expect(bare).to.have.length(1);
    expect(bare[0]).to.equal(`phase5: workflow failed: ${MISMATCH}`);
    expect(bare[0]).to.not.contain('Workflow execution failed');
  });

  it('a multi-line root message (import validation) becomes one line', () => {
    const importRoot = ApplicationFailure.create({
      type: 'UserInputError',
      message: 'import rejected — f.jsonl: 2 line(s)\n  f.jsonl:1: corrected_text: Required\n  f.jsonl:2: duplicate sample_id "a"',
      nonRetryable: true,
    });
    const { lines } = reported(
      new StageRunFailed(
        'infer',
        'id',
        new WorkflowFailedError('Workflow execution failed', activityChain(importRoot, 'importCorrections'), 'NON_RETRYABLE_FAILURE'),
      ),
      false,
    );
    expect(lines).to.deep.equal([
      'phase5: infer failed: import rejected — f.jsonl: 2 line(s) f.jsonl:1: corrected_text: Required f.jsonl:2: duplicate sample_id "a"',
    ]);
  });

  it('adds the hint that goes with a root cause whose message has none, and says when retries ran out', () => {
    const parse = ApplicationFailure.create({ type: 'JsonlParseError', message: '/r/corpus.jsonl:7: invalid JSON', nonRetryable: true });
    const [line] = formatWorkflowFailure(
      new WorkflowFailedError('Workflow execution failed', activityChain(parse, 'buildIndex'), 'NON_RETRYABLE_FAILURE'),
      false,
      'build',
    );
    expect(line).to.equal('phase5: build failed: /r/corpus.jsonl:7: invalid JSON — fix or remove that line, then run the command again');
    const transient = ApplicationFailure.create({ type: 'Error', message: 'ECONNRESET' });
    const [retried] = formatWorkflowFailure(
      new WorkflowFailedError('x', activityChain(transient, 'inferArm', 'MAXIMUM_ATTEMPTS_REACHED'), 'NON_RETRYABLE_FAILURE'),
      false,
      'infer',
    );
    expect(retried).to.equal('phase5: infer failed: ECONNRESET (retries exhausted)');
  });

  it('a timeout names the activity and what timed out', () => {
    const timeout = new TimeoutFailure(undefined, undefined, 'HEARTBEAT');
    const [line] = formatWorkflowFailure(
      new WorkflowFailedError('x', activityChain(timeout, 'exportShard', 'MAXIMUM_ATTEMPTS_REACHED'), 'TIMEOUT'),
      false,
      'export',
    );
    expect(line).to.equal(
      'phase5: export failed: activity exportShard timed out (HEARTBEAT) — is a worker polling the queue? `phase5 doctor` checks',
    );
  });

  it('--verbose adds the chain, one line per level, and the root stack', () => {
    const { lines } = reported(new StageRunFailed('run', 'phase5-default-3fa2c91b', studyFailure(root)), true);
    expect(lines[0]).to.equal(`phase5: export failed: ${MISMATCH}`);
    expect(lines.slice(1, 7)).to.deep.equal([
      'failure chain:',
      '  1. run: workflow phase5-default-3fa2c91b failed',
      '  2. WorkflowFailedError: Workflow execution failed (retry state NON_RETRYABLE_FAILURE)',
      '  3. ChildWorkflowFailure: exportWorkflow phase5-default-3fa2c91b-export failed (retry state NON_RETRYABLE_FAILURE)',
      '  4. ActivityFailure: activity exportShard failed (retry state NON_RETRYABLE_FAILURE)',
      `  5. ApplicationFailure IndexMismatchError (non-retryable): ${MISMATCH}`,
    ]);
    expect(lines.slice(7).join('\n')).to.contain('ApplicationFailure'); // the stack
  });
});
