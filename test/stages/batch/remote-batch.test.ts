/**
 * One batch file through the Batch API (src/stages/batch/remote-batch.ts) against a local Files + Batches server
 * (test/helpers/batch-api-server.ts): the status sequence to completed and the import of its output; an expired
 * batch (its unanswered lines in the error file, counted, asked again by the next --batch-out); a failed one (a
 * clear error); partial error files; a batch created before a crash found again by its metadata, not sent twice;
 * a cancelled wait cancels the remote batch.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import type { Config } from '../../../src/config/schema';
import { optionsFrom } from '../../../src/stages/infer/infer';
import { batchClient } from '../../../src/stages/batch/batch-client';
import { batchIn } from '../../../src/stages/batch/batch-in';
import { batchOut } from '../../../src/stages/batch/batch-out';
import { runRemoteBatch, type RemoteBatchState } from '../../../src/stages/batch/remote-batch';
import type { BatchFileEntry } from '../../../src/stages/batch/batch-manifest';
import type { StageHooks } from '../../../src/stages/shared/types';
import { studyPlan } from '../../../src/stages/study/plan';
import { forwardTo } from '../../helpers/batch-answer';
import { startBatchApiServer, type BatchApiOptions, type BatchApiServer } from '../../helpers/batch-api-server';
import { inferenceInputRecord } from '../../helpers/records';
import { startSimLlmServer, type SimLlmServer } from '../../helpers/sim-llm-server';

const ENV = { BATCH_KEY: 'k' };
const IDS = ['a1', 'a2', 'a3', 'a4'];

function setup(url: string): { config: Config; dir: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'remote-batch-'));
  const config = parseConfig(
    {
      paths: { results_dir: root },
      infer: {
        backend: 'openai_batch',
        max_failed_share: 1,
        openai: { base_url: url, model: 'sim', api_key_env: 'BATCH_KEY' },
        batch: { poll_s: 0.001 },
      },
      study: { arms: [{ name: 'zs', prompt: 'zero_shot' }] },
    },
    'remote-batch.yaml',
    { env: {} },
  );
  for (const a of studyPlan(config, {}).arms) {
    mkdirSync(path.dirname(a.input), { recursive: true });
    writeFileSync(a.input, IDS.map((id) => JSON.stringify(inferenceInputRecord(id))).join('\n') + '\n');
  }
  return { config, dir: path.join(root, 'batch', 'api') };
}

async function filesOf(config: Config, dir: string): Promise<BatchFileEntry[]> {
  return (await batchOut(optionsFrom(config, {}), dir, { maxLines: 100, maxBytes: 1 << 20 })).files;
}

function remote(config: Config, dir: string, entry: BatchFileEntry, hooks: StageHooks<RemoteBatchState> = {}) {
  return runRemoteBatch({ client: batchClient(config, ENV), dir, entry, pollMs: 1, completionWindow: '24h' }, hooks);
}

describe('stages/batch: the Batch API', function () {
  this.timeout(30_000);
  let sim: SimLlmServer;
  let api: BatchApiServer | undefined;
  before(async () => (sim = await startSimLlmServer()));
  after(() => sim.close());
  afterEach(async () => api?.close());

  async function start(o: Partial<BatchApiOptions> = {}) {
    api = await startBatchApiServer({ answer: forwardTo(sim.url), linesPerLook: 1, ...o });
    return setup(api.url);
  }

  it('validating → in_progress → finalizing → completed: progress from request_counts, output imported', async () => {
    const { config, dir } = await start({ failLine: (id) => (id.endsWith('a3') ? { code: 'server_error', message: 'boom' } : null) });
    const [entry] = await filesOf(config, dir);
    const seen: string[] = [];
    const progress: number[] = [];
    const r = await remote(config, dir, entry, { onProgress: (done, _t, step) => (progress.push(done), seen.push(step ?? '')) });
    expect([...new Set(seen)]).to.deep.equal(['validating', 'in_progress', 'finalizing', 'completed']);
    expect(progress[progress.length - 1]).to.equal(4);
    expect(r).to.include({ status: 'completed' });
    expect(r.counts).to.deep.equal({ total: 4, completed: 3, failed: 1 });
    expect(r.outputs.map((f) => path.basename(f))).to.deep.equal(['zs.r0.0000.jsonl.output.jsonl', 'zs.r0.0000.jsonl.errors.jsonl']);
    const imported = await batchIn(optionsFrom(config, {}), r.outputs);
    expect(imported.summary).to.match(
      /^batch-in: 3 line\(s\) imported; left out: 1 error line \(zs\.r0\.0000\.jsonl\.errors\.jsonl:1 server_error\)$/,
    );
    expect(api!.batches()).to.have.length(1);
  });

  it('an expired batch: what it answered is imported, the rest counted and asked for by the next --batch-out', async () => {
    const { config, dir } = await start({ outcome: () => ({ status: 'expired', after: 2 }) });
    const [entry] = await filesOf(config, dir);
    const r = await remote(config, dir, entry);
    expect(r.status).to.equal('expired');
    const imported = await batchIn(optionsFrom(config, {}), r.outputs);
    expect(imported.imported).to.equal(2);
    expect(imported.skipped['error line'].count).to.equal(2);
    expect((await filesOf(config, dir)).map((f) => f.lines)).to.deep.equal([2]);
  });

  it('a failed batch is an error naming the batch, the file and the reason', async () => {
    const { config, dir } = await start({ outcome: () => ({ status: 'failed', message: 'bad line' }) });
    const [entry] = await filesOf(config, dir);
    const err = await remote(config, dir, entry).catch((e: unknown) => e as Error);
    expect(String(err)).to.match(/batch batch_\d+ of zs\.r0\.0000\.jsonl failed: invalid_request \(line 1\): bad line/);
  });

  it('a batch created before a crash (no id recorded) is found by its metadata and waited on: one batch', async () => {
    const { config, dir } = await start();
    const [entry] = await filesOf(config, dir);
    api!.hold();
    // The worker dies while the batch runs (no cancel: the process is gone), and with it the state file and heartbeat.
    const died = await remote(config, dir, entry, {
      onProgress: (_d, _t, step) => {
        if (step === 'in_progress') throw new Error('worker died');
      },
    }).catch((e: unknown) => e as Error);
    expect(String(died)).to.include('worker died');
    rmSync(path.join(dir, `${entry.file}.batch.json`));
    api!.release();
    const r = await remote(config, dir, entry);
    expect(r.status).to.equal('completed');
    expect(api!.batches()).to.have.length(1);
    expect(api!.uploads()).to.equal(1);
  });

  it('a cancelled wait cancels the remote batch', async () => {
    const { config, dir } = await start();
    const [entry] = await filesOf(config, dir);
    api!.hold();
    const abort = new AbortController();
    const err = await remote(config, dir, entry, {
      signal: abort.signal,
      onProgress: (_d, _t, step) => step === 'in_progress' && abort.abort(new Error('cancelled by the user')),
    }).catch((e: unknown) => e as Error);
    expect(String(err)).to.include('cancelled by the user');
    expect(api!.batches()[0].status).to.equal('cancelling');
  });
});
