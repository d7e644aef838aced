/**
 * Infer checks the endpoint before its first correction: an arm whose model the endpoint does not serve stops in
 * one line naming the model and the ones served (a worker-local WorkerSetupError), with no correction request sent
 * and no failed record written — instead of a 404 on every line. Against the simulated box answering as vLLM.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { createBackend } from '../../../src/llm/index';
import * as inference from '../../../src/stages/infer/infer';
import { WorkerSetupError } from '../../../src/util/worker-setup-error';
import { inferenceInputRecord } from '../../helpers/records';
import { startSimLlmServer, type SimLlmServer } from '../../helpers/sim-llm-server';

describe('stages/infer: the model is checked before the first correction', () => {
  let results: string;
  let sim: SimLlmServer;
  before(async () => {
    results = mkdtempSync(path.join(os.tmpdir(), 'infer-preflight-'));
    sim = await startSimLlmServer({ models: ['smollm2'] });
  });
  after(async () => {
    await sim.close();
    rmSync(results, { recursive: true, force: true });
  });

  const configFor = (model: string) => {
    const dataset = path.join(results, 'd.jsonl');
    writeFileSync(dataset, '');
    return parseConfig(
      {
        paths: { results_dir: results },
        datasets: { d: { type: 'jsonl', path: dataset } },
        infer: { backend: 'openai', arms: ['zero_shot'], openai: { base_url: sim.url, model, adaptive_concurrency: false } },
      },
      'infer-preflight test',
      { env: {} },
    );
  };

  it('an unknown model: one line naming it and the models served; nothing sent, nothing written', async () => {
    const options = inference.optionsFrom(configFor('wrong'), {});
    const arm = options.arms[0];
    mkdirSync(path.dirname(arm.input), { recursive: true });
    writeFileSync(arm.input, ['a/1', 'a/2'].map((id) => JSON.stringify(inferenceInputRecord(id, 'd'))).join('\n') + '\n');
    const open = (cfg: Parameters<typeof createBackend>[0]) => createBackend({ ...cfg, env: { OPENAI_API_KEY: 'k' } } as typeof cfg);
    const err = await inference.run(options, {}, open).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(WorkerSetupError);
    expect((err as Error).message).to.equal(
      `model "wrong" is not served at ${sim.url} (it serves: smollm2) — set infer.openai.model (or the worker’s --openai-model) to one of them, or serve that model there`,
    );
    expect(sim.requests(), 'no correction request').to.deep.equal([]);
    expect(existsSync(arm.output) ? readFileSync(arm.output, 'utf8') : '', 'no record written').to.equal('');

    const served = await inference.run(inference.optionsFrom(configFor('smollm2'), {}), {}, open);
    expect((served as Record<string, { written: number; failed: number }>).zero_shot).to.include({ written: 2, failed: 0 });
  });
});
