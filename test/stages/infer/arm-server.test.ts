/**
 * An HTTP arm's server: asked (auto) only when the body depends on it, its decoding checked against it before the
 * first line, recorded in arm.json and the study manifest; the warning for replicates at temperature 0.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { createBackend } from '../../../src/llm/index';
import { armServers, greedyReplicatesWarning, withArmServer } from '../../../src/stages/infer/arm-server';
import { writeArmRequest } from '../../../src/stages/study/arm-files';
import { writeStudyManifest } from '../../../src/stages/study/manifest';
import { studyPlan } from '../../../src/stages/study/plan';
import { UserInputError } from '../../../src/stages/shared/types';
import { FIXTURES } from '../../helpers/shared-data';
import { completion, startFakeServer, type FakeRequest, type FakeResponse, type FakeServer } from '../../llm/fake-openai-server';

/** Answers like a vLLM 0.32 that ignores `guided_*`: `/version`, and chat completions that are JSON only when asked in `structured_outputs`. */
function vllmLike(r: FakeRequest): FakeResponse {
  if (r.url === '/version') return { json: { version: '0.32.0' } };
  if (r.url !== '/v1/chat/completions') return { status: 404, json: { detail: 'Not Found' } };
  return { json: completion(r.body.structured_outputs ? JSON.stringify({ corrected_text: 'قال' }) : 'prose, unconstrained') };
}

const SCHEMA = { type: 'object', properties: { corrected_text: { type: 'string' } }, required: ['corrected_text'] };

function config(
  dir: string,
  url: string,
  over: object = {},
  arms: object[] = [{ name: 'json', prompt: 'zero_shot', retrieval: { mode: 'none' } }],
) {
  return parseConfig(
    {
      paths: { results_dir: dir },
      datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
      infer: { backend: 'openai', openai: { base_url: url, model: 'smollm2', api_key_env: 'NO_KEY_NEEDED' }, ...over },
      study: { arms },
    },
    'arm-server-test.yaml',
    { env: {} },
  );
}

describe('stages/arm-server', () => {
  let server: FakeServer | null = null;
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'arm-server-'))));
  afterEach(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('auto + decoding.structured: asks /version, sends structured_outputs, and the answer is the constrained JSON', async () => {
    server = await startFakeServer(vllmLike);
    const arm = studyPlan(config(dir, server.url, { decoding: { structured: { json: SCHEMA } } }), {}).arms[0];
    const cfg = await withArmServer(arm.backend(), arm.name);
    expect(cfg).to.deep.include({ server: { kind: 'vllm', version: '0.32.0', source: 'GET /version' } });
    if (cfg.type !== 'openai') throw new Error('an HTTP arm');
    const backend = await createBackend({ ...cfg, env: { NO_KEY_NEEDED: 'x' } });
    const res = await backend.complete([{ role: 'user', content: 'قاك' }]);
    const sent = server.requests.find((r) => r.url === '/v1/chat/completions')!.body;
    expect(sent.structured_outputs).to.deep.equal({ json: SCHEMA });
    expect(sent).to.not.have.property('guided_json');
    expect(JSON.parse(res.text)).to.deep.equal({ corrected_text: 'قال' });
  });

  it('a default decoding on auto asks nothing and sends the portable body', async () => {
    server = await startFakeServer(vllmLike);
    const arm = studyPlan(config(dir, server.url), {}).arms[0];
    const cfg = await withArmServer(arm.backend(), arm.name);
    expect(cfg).to.deep.include({ server: { kind: 'unknown', version: null, source: 'none' } });
    expect(server.requests).to.have.length(0);
  });

  it('a constraint the detected server cannot take is refused before the first line, naming arm, server and key', async () => {
    server = await startFakeServer((r) => (r.url === '/api/version' ? { json: { version: '0.12.3' } } : { status: 404, json: {} }));
    const arm = studyPlan(config(dir, server.url, { decoding: { structured: { regex: '[ء-ي ]+' } } }), {}).arms[0];
    let err: unknown = null;
    await withArmServer(arm.backend(), arm.name).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(UserInputError);
    expect((err as Error).message).to.equal(
      'arm "json" (smollm2 on Ollama 0.12.3): decoding.structured: Ollama takes no regex constraint — use decoding.structured.json (a schema with an "enum" for a choice)',
    );
    expect(server.requests.some((r) => r.url.startsWith('/v1/chat'))).to.equal(false);
  });

  it('records the server (kind, version, request rules) in arm.json and the study manifest; an unreachable one with its reason', async () => {
    server = await startFakeServer(vllmLike);
    const cfg = config(dir, server.url);
    const arms = studyPlan(cfg, {}).arms;
    const servers = await armServers(arms);
    await writeArmRequest(arms[0], servers.json);
    const armJson = JSON.parse(readFileSync(path.join(arms[0].dir!, 'arm.json'), 'utf8'));
    const recorded = {
      kind: 'vllm',
      version: '0.32.0',
      source: 'GET /version',
      request_rules: { token_field: 'max_tokens', sends_sampling: true, max_stop: null },
    };
    expect(armJson.server).to.deep.equal(recorded);
    const manifest = JSON.parse(readFileSync(await writeStudyManifest(cfg, servers), 'utf8'));
    expect(manifest.servers).to.deep.equal({ json: recorded });
    await server.close();
    server = null;
    const gone = await armServers(studyPlan(config(dir, 'http://127.0.0.1:9/v1'), {}).arms);
    expect(gone.json).to.include({ kind: 'unknown' });
    expect(gone.json.error).to.match(/^cannot reach http:\/\/127\.0\.0\.1:9 to ask which server it is/);
  });

  it('a named server is recorded as configured, with the OpenAI reasoning model’s rules', async () => {
    const cfg = config(dir, 'https://api.openai.com/v1', { openai: { model: 'o3', server: 'openai' } });
    const servers = await armServers(studyPlan(cfg, {}).arms);
    expect(servers.json).to.deep.equal({
      kind: 'openai',
      version: null,
      source: 'config',
      request_rules: { token_field: 'max_completion_tokens', sends_sampling: false, max_stop: 0 },
    });
  });

  it('replicates at temperature 0 are warned about; sampled ones are not', () => {
    const arms = [
      { name: 'greedy', prompt: 'zero_shot', retrieval: { mode: 'none' }, replicates: 3 },
      { name: 'sampled', prompt: 'zero_shot', retrieval: { mode: 'none' }, replicates: 3, decoding: { temperature: 0.7 } },
    ];
    const [greedy, sampled] = studyPlan(config(dir, 'http://127.0.0.1:9/v1', {}, arms), {}).arms;
    expect(greedyReplicatesWarning(greedy)).to.equal(
      'arm "greedy": 3 replicates at temperature 0 repeat the greedy answer — their spread is the server\'s nondeterminism only (set decoding.temperature to sample)',
    );
    expect(greedyReplicatesWarning(sampled)).to.equal(null);
  });
});
