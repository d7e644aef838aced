/**
 * Secrets: an API key set in the environment is used for the LLM calls but never appears in logs, results,
 * workflow inputs or workflow history. Real local Temporal server, the real `inferWorkflow` with the real infer
 * activity, against the fake OpenAI server (`infer.backend: openai`, `api_key_env: PHASE5_TEST_KEY`) — which
 * echoes the Authorization header and the bare key in its 401 error bodies, so the error path gets the key
 * handed back and has to keep it out of every record, message and log line.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { inferWorkflow } from '../workflows';
import { collectSecrets } from '../bin/cli/secrets';
import { parseConfig } from '../src/config/load';
import { startOrAttach } from '../src/temporal/client';
import { UserFacingError } from '../src/temporal/server';
import { workflowBundle } from '../bin/cli/worker-runtime';
import type { StageInput } from '../workflows/types';
import { captureLogs, type LogCapture } from './helpers/log-capture';
import { inferenceInputRecord } from './helpers/records';
import { decodedText } from './helpers/decoded-text';
import { createLocalEnv } from './helpers/temporal';
import { echo, startFakeServer, type FakeServer } from './llm/fake-openai-server';
import { writeDefaultInput } from './helpers/default-arms';

const KEY_ENV = 'PHASE5_TEST_KEY';
const KEY = `sk-phase5-test-${randomBytes(16).toString('hex')}`;
const CPU = 'secrets-cpu';
const GPU = 'secrets-gpu';

/** Every file under `dir`, concatenated (results are small here). */
function allFilesText(dir: string): { files: string[]; text: string } {
  const files = readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, String(f)))
    .filter((f) => statSync(f).isFile());
  return { files, text: files.map((f) => readFileSync(f, 'utf8')).join('\n') };
}

const inputRecord = (id: string) => inferenceInputRecord(id, 'secrets');

describe('secrets: an API key from the environment stays out of logs, results, inputs and history', function () {
  this.timeout(120000);
  let env: TestWorkflowEnvironment;
  let server: FakeServer;
  let rejectAll = false;
  const previous = process.env[KEY_ENV];
  const dirs: string[] = [];

  before(async () => {
    process.env[KEY_ENV] = KEY;
    server = await startFakeServer((req) => {
      const user = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
      if (rejectAll || user.startsWith('reject')) {
        // Like some providers: the error body repeats what the client sent.
        const auth = String(req.headers.authorization ?? '');
        return {
          status: 401,
          json: {
            error: {
              message: `Incorrect API key provided: ${auth.replace(/^Bearer\s+/, '')} (Authorization: ${auth})`,
              type: 'invalid_request_error',
            },
          },
        };
      }
      return echo(req);
    });
    [env] = await Promise.all([createLocalEnv(), workflowBundle()]);
  });
  after(async () => {
    await env?.teardown();
    await server?.close();
    if (previous === undefined) delete process.env[KEY_ENV];
    else process.env[KEY_ENV] = previous;
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  function study(name: string, ids: string[], retry = 1) {
    const results = mkdtempSync(path.join(os.tmpdir(), `secrets-${name}-`));
    dirs.push(results);
    writeDefaultInput(results, ids.map((id) => JSON.stringify(inputRecord(id))).join('\n') + '\n');
    const config = parseConfig(
      {
        paths: { results_dir: results },
        infer: {
          backend: 'openai',
          arms: ['rag', 'zero_shot'],
          openai: { base_url: server.url, model: 'fake-model', api_key_env: KEY_ENV, max_retries: 0, concurrency: 2 },
          max_failed_share: 0.5, // the recorded 401s are the subject here, not the failed-share limit
        },
        temporal: {
          queues: { cpu: CPU, gpu: GPU },
          retry: { maximum_attempts: retry },
          stages: { infer: { queue: 'gpu', start_to_close: '1h', retry: { maximum_attempts: retry } } },
        },
      },
      'secrets test config',
      { env: {} },
    );
    const input: StageInput = { run: `secrets-${name}-${Date.now()}`, config, options: {}, force: false };
    return { results, config, input, workflowId: `phase5-${input.run}-infer` };
  }

  /** Run `fn` with real workers (real activities) on both queues, capturing logs and stdio meanwhile. */
  async function withWorkers<T>(fn: () => Promise<T>): Promise<{ value: T; logs: LogCapture }> {
    const logs = captureLogs({ stdio: true });
    const bundle = await workflowBundle();
    const workers = await Promise.all(
      [CPU, GPU].map((taskQueue) =>
        Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: createActivities() }),
      ),
    );
    const runs = workers.map((w) => w.run());
    try {
      return { value: await fn(), logs };
    } finally {
      workers.forEach((w) => w.shutdown());
      await Promise.all(runs);
      logs.stop();
    }
  }

  function expectNoKey(what: string, text: string): void {
    expect(text.includes(KEY), `the API key appears in ${what}`).to.equal(false);
  }

  it('inferWorkflow with the real activity: the key authenticates every call, a 401 echoing it is recorded redacted', async () => {
    const s = study('ok', ['sample-1', 'reject-2', 'sample-3']);
    expect(collectSecrets(s.config)).to.deep.equal([KEY]);
    const requestsBefore = server.requests.length;
    let handle: WorkflowHandle | undefined;
    const { value: result, logs } = await withWorkers(async () => {
      const started = await startOrAttach(env.client, inferWorkflow, s.workflowId, [s.input], {
        taskQueue: CPU,
        forbiddenValues: collectSecrets(s.config),
      });
      expect(started.outcome).to.equal('started');
      handle = started.handle;
      return handle.result() as Promise<Record<string, { written: number; failed: number; failuresByReason: Record<string, number> }>>;
    });

    // The key was really used (so "not found anywhere" below means something).
    // Every request carries it, the plan's GETs asking which server it is (infer.openai.server: auto) too.
    const requests = server.requests.slice(requestsBefore);
    expect(requests.filter((r) => r.url.endsWith('/chat/completions'))).to.have.length(6); // 3 samples × 2 conditions
    expect(requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).to.equal(true);

    // Results: workflow result, both corrections files, everything in the results dir.
    expect(result.rag).to.include({ written: 3, failed: 1 });
    expect(result.zero_shot).to.include({ written: 3, failed: 1 });
    expectNoKey('the workflow result', JSON.stringify(result));
    const rag = readFileSync(path.join(s.results, 'arms', 'rag', 'corrections.jsonl'), 'utf8');
    const failed = rag
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((r) => r.sample_id === 'reject-2');
    expect(failed.error).to.include({ reason: 'client_error', status: 401 });
    expect(failed.error.message, failed.error.message).to.match(
      /^HTTP 401: Incorrect API key provided: \[REDACTED\] \(Authorization: Bearer \[REDACTED\]/,
    );
    const all = allFilesText(s.results);
    expect(all.files.map((f) => path.relative(s.results, f)).sort()).to.include.members([
      path.join('arms', 'zero_shot', 'corrections.jsonl'),
      path.join('arms', 'rag', 'corrections.jsonl'),
    ]);
    expectNoKey('the results dir', all.text);

    // Workflow input and history, payloads decoded.
    const history = await handle!.fetchHistory();
    const startedEvent = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const input = decodedText(startedEvent?.input);
    expect(input).to.contain(KEY_ENV); // the config travels with the variable's name …
    expectNoKey('the workflow input', input); // … never its value
    const text = decodedText(history);
    expect(text).to.contain('client_error'); // activity results are in the decoded text
    expectNoKey('the workflow history', text);

    // Logs: the project's pino output (at debug level) and anything written to stdout/stderr.
    expect(logs.text()).to.match(/infer rag: .*1 failed/);
    expectNoKey('the logs', logs.text());
    expectNoKey('stdout/stderr', logs.stdio());
  });

  it('an activity that fails on the 401s: the failure message in history carries no key', async () => {
    const s = study(
      'fail',
      Array.from({ length: 24 }, (_, i) => `sample-${i}`),
    );
    rejectAll = true;
    let failure: unknown;
    let handle: WorkflowHandle | undefined;
    try {
      const { logs } = await withWorkers(async () => {
        handle = (
          await startOrAttach(env.client, inferWorkflow, s.workflowId, [s.input], {
            taskQueue: CPU,
            forbiddenValues: collectSecrets(s.config),
          })
        ).handle;
        try {
          await handle.result();
        } catch (err) {
          failure = err;
        }
      });
      expectNoKey('the logs', logs.text());
      expectNoKey('stdout/stderr', logs.stdio());
    } finally {
      rejectAll = false;
    }
    expect(failure).to.be.instanceOf(WorkflowFailedError);
    const chain: string[] = [];
    for (let e = failure as (Error & { cause?: unknown }) | undefined; e; e = e.cause as typeof e) chain.push(e.message);
    const messages = chain.join(' | ');
    expect(messages, messages).to.match(
      /giving up after 20 consecutive failures \(last: client_error HTTP 401: .*Incorrect API key provided: \[REDACTED\]/,
    );
    expectNoKey('the failure', messages);
    const text = decodedText(await handle!.fetchHistory());
    expect(text).to.contain('Incorrect API key provided: [REDACTED]');
    expectNoKey('the workflow history', text);
    expectNoKey('the results dir', allFilesText(s.results).text);
  });

  it('startOrAttach refuses to start a workflow whose input would hold the key', async () => {
    const s = study('refuse', ['sample-1']);
    const leaky: StageInput = {
      ...s.input,
      config: {
        ...s.config,
        infer: { ...s.config.infer, openai: { ...s.config.infer.openai, base_url: `http://127.0.0.1:1/v1?api_key=${KEY}` } },
      },
    };
    let err: unknown;
    try {
      await startOrAttach(env.client, inferWorkflow, s.workflowId, [leaky], { taskQueue: CPU, forbiddenValues: collectSecrets(s.config) });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(UserFacingError);
    expect((err as Error).message).to.equal('refusing to start: a secret value would be written into the workflow input');
    let notFound: unknown;
    try {
      await env.client.workflow.getHandle(s.workflowId).describe();
    } catch (e) {
      notFound = e;
    }
    expect(notFound, 'nothing was started').to.be.instanceOf(WorkflowNotFoundError);
  });
});
