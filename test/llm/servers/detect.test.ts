/** `infer.openai.server: auto`: which server answers at a base URL, from the route each kind serves. */
import { expect } from 'chai';
import { detectServer, serverAt } from '../../../src/llm/servers/detect';
import { freePort, startFakeServer, type FakeRequest, type FakeResponse, type FakeServer } from '../fake-openai-server';

/** A server that answers one route as `kind` does and 404 elsewhere (vLLM, SGLang, llama.cpp and Ollama bodies as their sources write them). */
function answering(route: string, json: unknown): (r: FakeRequest) => FakeResponse {
  return (r) => (r.url === route ? { json } : { status: 404, json: { detail: 'Not Found' } });
}

describe('llm/servers/detect', () => {
  let server: FakeServer | null = null;
  afterEach(async () => server?.close());

  const cases: [string, string, unknown, { kind: string; version: string | null; source: string }][] = [
    ['vLLM', '/version', { version: '0.32.0' }, { kind: 'vllm', version: '0.32.0', source: 'GET /version' }],
    [
      'llama.cpp',
      '/props',
      { default_generation_settings: { n_ctx: 2048 }, total_slots: 1, build_info: 'b6500-1a2b3c' },
      { kind: 'llamacpp', version: 'b6500-1a2b3c', source: 'GET /props' },
    ],
    ['Ollama', '/api/version', { version: '0.12.3' }, { kind: 'ollama', version: '0.12.3', source: 'GET /api/version' }],
    [
      'SGLang',
      '/get_server_info',
      { model_path: 'Qwen/Qwen3-4B', tp_size: 1, version: '0.5.4' },
      { kind: 'sglang', version: '0.5.4', source: 'GET /get_server_info' },
    ],
  ];
  for (const [name, route, json, want] of cases)
    it(`finds ${name} from GET ${route} on the URL without /v1`, async () => {
      server = await startFakeServer(answering(route, json));
      expect(await detectServer(server.url, null)).to.deep.equal(want);
      expect(server.requests.every((r) => r.method === 'GET' && !r.url.startsWith('/v1'))).to.equal(true);
    });

  it('a server answering none of the routes as its kind is unknown; OpenAI’s URL is OpenAI without a request', async () => {
    server = await startFakeServer(); // answers every request with a chat completion
    expect(await detectServer(server.url, 'k')).to.include({ kind: 'unknown', version: null });
    expect(server.requests[0].headers.authorization).to.equal('Bearer k');
    expect(await detectServer('https://api.openai.com/v1', null)).to.deep.equal({ kind: 'openai', version: null, source: 'base_url' });
  });

  it('asks once per URL; an unreachable server is an error, asked again next time', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1`;
    let error: Error | null = null;
    await serverAt(url, null).catch((e: Error) => (error = e));
    expect(error!.message).to.match(/^cannot reach http:\/\/127\.0\.0\.1:\d+ to ask which server it is \(GET \/props: ECONNREFUSED\)/);
    server = await startFakeServer(answering('/version', { version: '0.32.0' }), { port });
    expect(await serverAt(url, null)).to.include({ kind: 'vllm' });
    const asked = server.requests.length;
    expect(await serverAt(url, null)).to.include({ kind: 'vllm', version: '0.32.0' });
    expect(server.requests.length).to.equal(asked);
  });
});
