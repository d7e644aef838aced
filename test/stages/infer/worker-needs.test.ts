/**
 * What a worker checks at start for the stages on its queues (src/stages/infer/worker-needs.ts): the API key variable,
 * the LLM endpoint (a real HTTP server, up and down) and the GGUF file of each arm, the worker's own override
 * applied; the embedding model for the build/export queue.
 */
import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { checkWorkerNeeds, describeMissing } from '../../../src/stages/infer/worker-needs';
import { startSimLlmServer, type SimLlmServer } from '../../helpers/sim-llm-server';

const config = (infer: Record<string, unknown>) =>
  parseConfig({ paths: { results_dir: path.join(os.tmpdir(), 'worker-needs') }, infer }, 'test', { env: {} });

describe('stages/worker-needs: what a worker checks before taking a task', () => {
  let sim: SimLlmServer;
  before(async () => {
    sim = await startSimLlmServer();
  });
  after(async () => {
    await sim.close();
  });

  it('openai: the key variable of every arm and its endpoint, one line per missing need, on the infer queue only', async () => {
    const c = config({ backend: 'openai', openai: { base_url: 'http://127.0.0.1:9/v1', model: 'm', api_key_env: 'HO_KEY' } });
    const needs = await checkWorkerNeeds(c, ['phase5-gpu'], {}, {});
    expect(describeMissing(needs)).to.deep.equal([
      "phase5-gpu cannot run its tasks: API key (arms rag, zero_shot): environment variable HO_KEY is not set — set it in the worker's environment",
      'phase5-gpu cannot run its tasks: LLM endpoint http://127.0.0.1:9/v1, model m (arms rag, zero_shot): does not answer (GET /health: no answer (refused or timed out)) — start the server, or check infer.openai.base_url / --openai-base-url',
    ]);
    const cpuOnly = await checkWorkerNeeds(c, ['phase5-cpu'], {}, {});
    expect(cpuOnly.map((n) => n.queue)).to.deep.equal(['phase5-cpu']);
    expect(cpuOnly[0].what).to.match(/^embedding model /);
  });

  it('the worker’s own endpoint and key variable replace the config’s, and both are there', async () => {
    const c = config({ backend: 'openai', openai: { base_url: 'http://127.0.0.1:9/v1', model: 'm', api_key_env: 'HO_KEY' } });
    const needs = await checkWorkerNeeds(c, ['phase5-gpu'], { baseUrl: sim.url, model: 'sim', apiKeyEnv: 'BOX_KEY' }, { BOX_KEY: 'k' });
    expect(needs.map((n) => [n.what, n.ok, n.detail])).to.deep.equal([
      ['API key (arms rag, zero_shot)', true, 'set'],
      [`LLM endpoint ${sim.url}, model sim (arms rag, zero_shot)`, true, 'answers; serves sim'],
    ]);
  });

  it('an endpoint that answers but does not serve the arm’s model: one line naming the model and the ones served', async () => {
    const box = await startSimLlmServer({ models: ['smollm2'] });
    try {
      const c = config({ backend: 'openai', openai: { base_url: box.url, model: 'wrong' } });
      expect(describeMissing(await checkWorkerNeeds(c, ['phase5-gpu'], {}, { OPENAI_API_KEY: 'k' }))).to.deep.equal([
        `phase5-gpu cannot run its tasks: LLM endpoint ${box.url}, model wrong (arms rag, zero_shot): model "wrong" is not served at ${box.url} (it serves: smollm2) — set infer.openai.model (or the worker’s --openai-model) to one of them, or serve that model there`,
      ]);
      expect(box.served(), 'checked without a correction').to.equal(0);
    } finally {
      await box.close();
    }
  });

  it('local: a GGUF missing on this worker', async () => {
    const c = config({ backend: 'local', local: { model_path: '/nonexistent/model.gguf' } });
    const missing = describeMissing(await checkWorkerNeeds(c, ['phase5-gpu'], {}, {}));
    expect(missing).to.deep.equal([
      'phase5-gpu cannot run its tasks: LLM model (arms rag, zero_shot): GGUF model not found: /nonexistent/model.gguf — put it on this worker (infer.local.model_path; `npm run setup` installs the default)',
    ]);
  });
});
