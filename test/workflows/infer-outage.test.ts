/**
 * An LLM outage is retried, not recorded — the infer stage through a real workflow, a real worker (the real
 * activities and OpenAI backend) and a real local Temporal server, against an OpenAI-compatible HTTP server on
 * 127.0.0.1 that is down at the start and comes up later, or that goes down for good mid-run. The retry policy
 * and the outage budget are test-short (config keys `temporal.stages.infer.retry`, `infer.outage_budget`).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { inferWorkflow } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { inferenceInputRecord } from '../helpers/records';
import { REPO_ROOT } from '../helpers/shared-data';
import { createLocalEnv } from '../helpers/temporal';
import { echo, freePort, startFakeServer, type FakeServer } from '../llm/fake-openai-server';
import { writeDefaultInput } from '../helpers/default-arms';

const KEY_ENV = 'PHASE5_OUTAGE_TEST_KEY';
const LINES = Array.from({ length: 12 }, (_, i) => `line-${String(i).padStart(2, '0')}`);

const records = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

interface Study {
  config: Config;
  configFile: string;
  output: string;
  queue: string;
}

/** A results dir with inference_input.jsonl and a config file (JSON is YAML) pointing infer at `port`. */
function study(name: string, port: number, outageBudget: string): Study {
  const results = mkdtempSync(path.join(os.tmpdir(), `infer-outage-${name}-`));
  writeDefaultInput(results, LINES.map((id) => JSON.stringify(inferenceInputRecord(id))).join('\n') + '\n');
  const queue = `outage-${name}-${Date.now()}`;
  const raw = {
    paths: { results_dir: results },
    analysis: { bootstrap_iterations: 50 },
    infer: {
      backend: 'openai',
      outage_budget: outageBudget,
      openai: {
        base_url: `http://127.0.0.1:${port}/v1`,
        model: 'fake-model',
        api_key_env: KEY_ENV,
        max_retries: 1,
        timeout_s: 2,
        concurrency: 2,
      },
    },
    temporal: {
      queues: { cpu: queue, gpu: queue },
      stages: {
        infer: {
          queue: 'gpu',
          start_to_close: '5m',
          retry: { maximum_attempts: 0, initial_interval: '300ms', backoff_coefficient: 2, maximum_interval: '1s' },
        },
      },
    },
  };
  const configFile = path.join(results, 'config.yaml');
  writeFileSync(configFile, JSON.stringify(raw, null, 2));
  return { config: loadConfig(configFile).config, configFile, output: path.join(results, 'arms', 'rag', 'corrections.jsonl'), queue };
}

describe('infer: an LLM outage is retried, not recorded (real workflow, worker and Temporal)', function () {
  this.timeout(180000);
  let env: TestWorkflowEnvironment;
  const previousKey = process.env[KEY_ENV];

  before(async () => {
    process.env[KEY_ENV] = 'outage-test-key';
    env = await createLocalEnv();
    await workflowBundle();
  });
  after(async () => {
    await env?.teardown();
    if (previousKey === undefined) delete process.env[KEY_ENV];
    else process.env[KEY_ENV] = previousKey;
  });

  /** Run the infer stage's workflow with a worker serving the real activities on the study's queue. */
  async function runInfer(s: Study, workflowId: string) {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: s.queue,
      workflowBundle: await workflowBundle(),
      activities: createActivities(),
    });
    const input: StageInput = { run: workflowId, config: s.config, options: {}, force: false };
    return worker.runUntil(
      env.client.workflow.execute(inferWorkflow, { taskQueue: s.queue, workflowId, args: [input], workflowExecutionTimeout: '2m' }).then(
        (result) => ({ result, error: null }),
        (error: unknown) => ({ result: null, error }),
      ),
    );
  }

  /** The attempt number of the infer activity's last attempt, from the workflow history. */
  async function lastAttempt(workflowId: string): Promise<number> {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const started = (history.events ?? []).map((e) => e.activityTaskStartedEventAttributes).filter(Boolean);
    return Math.max(...started.map((a) => a!.attempt ?? 1));
  }

  it('down at the start, up 20 s later (as in the issue): completes with zero failed records and every line corrected', async () => {
    const port = await freePort();
    const s = study('recover', port, '2m');
    s.config.infer.arms = ['rag'];
    let server: FakeServer | undefined;
    let upAt = 0;
    const bringUp = setTimeout(async () => {
      server = await startFakeServer(echo, { port });
      upAt = Date.now();
    }, 20_000);
    try {
      const { result, error } = await runInfer(s, `outage-recover-${Date.now()}`);
      expect(error, String(error)).to.equal(null);
      expect((result as { rag?: object }).rag).to.include({ written: LINES.length, failed: 0, succeeded: LINES.length });
      const recs = records(s.output);
      // Safety net: before, every line became {"error":{"reason":"connection"}} and the stage "succeeded".
      expect(recs.map((r) => r.sample_id)).to.deep.equal(LINES);
      expect(recs.every((r) => r.error === null && r.corrected_text === r.sample_id)).to.equal(true);
      expect(server!.requests.length).to.be.at.least(LINES.length);
      expect(server!.requests[0].at).to.be.at.least(upAt - 50);
    } finally {
      clearTimeout(bringUp);
      await server?.close();
    }
  });

  it('down for good mid-run: fails non-retryably after the outage budget with a one-line reason; `phase5 report` prints no ΔCER', async () => {
    const port = await freePort();
    const s = study('dead', port, '3s');
    // One arm, so which arm's shard meets the dead server first is not a race (arms run at once).
    s.config.infer.arms = ['rag'];
    let served = 0;
    // Serves four lines, then the server is gone for good (connections refused from then on). Only chat
    // completions count: infer's plan asks the server which it is first (infer.openai.server: auto).
    const server = await startFakeServer(
      (req) => {
        if (req.url.endsWith('/chat/completions')) served++;
        if (served === 4) setImmediate(() => void server.close());
        return echo(req);
      },
      { port },
    );
    const workflowId = `outage-dead-${Date.now()}`;
    const { error } = await runInfer(s, workflowId);
    expect(error).to.be.instanceOf(WorkflowFailedError);
    // The shard activities run in the arm's child workflow (sharded infer).
    const child = (error as WorkflowFailedError).cause;
    expect(child).to.be.instanceOf(ChildWorkflowFailure);
    const activity = (child as ChildWorkflowFailure).cause;
    expect(activity).to.be.instanceOf(ActivityFailure);
    const failure = (activity as ActivityFailure).cause as ApplicationFailure;
    expect(failure).to.be.instanceOf(ApplicationFailure);
    expect(failure.type).to.equal('InferFailedError');
    expect(failure.nonRetryable).to.equal(true);
    expect(failure.message).to.match(
      /^infer rag: the LLM at openai:http:\/\/127\.0\.0\.1:\d+\/v1 has not served for \d+s \(infer\.outage_budget 3s; last: connection: /,
    );
    expect(failure.message).to.match(/line\(s\) left — bring the endpoint up and rerun `phase5 infer`$/);
    expect(failure.message).not.to.contain('\n');
    expect(await lastAttempt(`${workflowId}-rag`), 'Temporal retried the activity before giving up').to.be.at.least(2);
    // What was served is kept (merged from the shards' parts when the arm failed); nothing was recorded as failed.
    const recs = records(s.output);
    expect(recs.length).to.be.within(1, 4);
    expect(recs.every((r) => r.error === null)).to.equal(true);

    // The baseline never ran: the report has no comparison to headline.
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', s.configFile, 'report'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 90000,
    });
    expect(r.status, r.stderr).to.equal(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('d '))!;
    expect(line).to.match(/zero-shot +- +RAG/);
    expect(line).to.match(/ΔCER +- *$/);
    const comparison = JSON.parse(readFileSync(path.join(path.dirname(s.output), 'comparison.json'), 'utf8'));
    expect(comparison.overall.delta).to.equal(null);
    expect(comparison.overall.interpretation).to.match(/No Phase 2 baseline/);
  });
});
