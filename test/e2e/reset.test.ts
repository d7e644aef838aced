/**
 * Reset, the way a user does it: a finished tiny study (real activities, its own dev server), then
 * `temporal workflow reset` with the Temporal CLI that setup installed: of the analyze stage's workflow to its
 * first workflow task, then of the whole-study workflow to the task that started the analyze child. The analyze
 * outputs are deleted before each reset, so passing means the reset run really wrote them again — and
 * byte-identical (sha256) to the first run's.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resultDirs } from '../../src/config/load';
import { resolveTemporalCli } from '../../src/temporal/server';
import { runWorkflowId, stageWorkflowId } from '../../workflows/types';
import { runTinyStudy, startTinyStudy, tinyStudyConfig, type TinyStudy } from '../../scripts/tiny-study';
import { installTestRuntime } from '../helpers/temporal';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The files the analyze stage wrote: everything under results/phase5 changed since it started, but the journal. */
function analyzeOutputs(ragDir: string, analyzeStart: Date): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of filesUnder(ragDir)) {
    if (path.basename(f) === 'phase5.log') continue; // an append-only journal with wall-clock lines
    if (statSync(f).mtimeMs >= analyzeStart.getTime()) out.set(path.relative(ragDir, f), sha256(f));
  }
  return out;
}

describe('reset: temporal workflow reset re-runs analyze with byte-identical outputs', function () {
  this.timeout(600000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reset-'));
  let study: TinyStudy | undefined;
  let firstOutputs = new Map<string, string>();
  const analyzeId = () => stageWorkflowId(study!.config.run_name, 'analyze');
  const ragDir = () => resultDirs(study!.config).phase5;
  const hashesOf = (rels: Iterable<string>) => new Map([...rels].map((rel) => [rel, sha256(path.join(ragDir(), rel))]));

  before(async () => {
    installTestRuntime();
    study = await startTinyStudy(await tinyStudyConfig(dir));
  });
  after(async () => {
    await study?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resets the finished analyze workflow to its first workflow task; it completes again with byte-identical outputs', async () => {
    const { client } = study!;
    const result = await runTinyStudy(study!, 2);
    const first = await client.workflow.getHandle(analyzeId()).describe();
    expect(first.status.name).to.equal('COMPLETED');
    firstOutputs = analyzeOutputs(ragDir(), first.startTime);
    expect([...firstOutputs.keys()]).to.include('report.html');
    expect(firstOutputs.size).to.be.at.least(result.analyze!.files);
    for (const rel of firstOutputs.keys()) rmSync(path.join(ragDir(), rel)); // so only a real re-run passes

    temporalCli('workflow', 'reset', '--workflow-id', analyzeId(), '--type', 'FirstWorkflowTask', '--reason', 'reset test: re-run analyze');
    const latest = client.workflow.getHandle(analyzeId()); // no run id: the run the reset started
    await latest.result();
    const second = await latest.describe();
    expect(second.runId).to.not.equal(first.runId);
    expect(second.status.name).to.equal('COMPLETED');
    expect(hashesOf(firstOutputs.keys())).to.deep.equal(firstOutputs);
  });

  it('resets the whole-study workflow to just before it started the analyze child; analyze runs again, same outputs', async () => {
    const { config, client } = study!;
    const parent = client.workflow.getHandle(runWorkflowId(config.run_name));
    const analyzeBefore = await client.workflow.getHandle(analyzeId()).describe();
    const startAnalyze = (await parent.fetchHistory()).events?.find(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name === 'analyzeWorkflow',
    );
    const eventId = startAnalyze?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowTaskCompletedEventId;
    expect(eventId, 'the parent started an analyze child').to.not.equal(undefined);
    for (const rel of firstOutputs.keys()) rmSync(path.join(ragDir(), rel));

    temporalCli(
      'workflow',
      'reset',
      '--workflow-id',
      parent.workflowId,
      '--event-id',
      String(eventId),
      '--reason',
      'reset test: redo analyze in the study',
    );
    const again = await client.workflow.getHandle(parent.workflowId).result();
    expect(again).to.have.keys('build', 'export', 'infer', 'analyze');
    const analyzeAfter = await client.workflow.getHandle(analyzeId()).describe();
    expect(analyzeAfter.runId).to.not.equal(analyzeBefore.runId);
    expect(hashesOf(firstOutputs.keys())).to.deep.equal(firstOutputs);
  });

  /** The Temporal CLI that setup installed, against this test's own server. */
  function temporalCli(...args: string[]): void {
    const { address, namespace } = study!.config.temporal;
    const cli = spawnSync(resolveTemporalCli(), [...args, '--address', address, '--namespace', namespace], { encoding: 'utf8' });
    expect(cli.status, `${cli.stdout}\n${cli.stderr}`).to.equal(0);
  }
});
