/**
 * The probe against a real vLLM (test/helpers/vllm-server.ts of the vllm branch, when this tree has it): the
 * continuation test over `/v1/completions`, and the likelihood test from the engine's own prompt log-probabilities
 * (`echo` with `logprobs`). Skipped, with the reason, where the helper or the engine is absent.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { HttpProbeClient, TOP_LOGPROBS } from '../../../src/stages/probe/http-client';
import { REPO_ROOT } from '../../helpers/shared-data';

interface VllmHelper {
  vllmSkipReason(): string | null;
  sharedVllmServer(): Promise<{ baseUrl: string; model: string }>;
}

describe('memorisation probe on a real vLLM', function () {
  this.timeout(20 * 60_000);
  let helper: VllmHelper;
  before(async function () {
    const file = path.join(REPO_ROOT, 'test', 'helpers', 'vllm-server.ts');
    if (!existsSync(file)) {
      console.log('    (skipped: test/helpers/vllm-server.ts is not in this tree — it comes from the vllm branch)');
      return this.skip();
    }
    helper = (await import(file)) as VllmHelper;
    const reason = helper.vllmSkipReason();
    if (reason) {
      console.log(`    (skipped: ${reason})`);
      this.skip();
    }
  });

  it('continues a prompt and returns the prompt’s log-probabilities with top candidates', async () => {
    const server = await helper.sharedVllmServer();
    const client = new HttpProbeClient({ baseUrl: server.baseUrl, model: server.model, apiKey: null, timeoutMs: 120_000, maxRetries: 1 });
    const c = await client.continueText('قال أبو عثمان عمرو بن', 8);
    assert.equal(typeof c.text, 'string');
    assert.ok(c.completionTokens !== null && c.completionTokens <= 8);
    const l = await client.likelihood('قال أبو عثمان عمرو بن بحر الجاحظ');
    assert.ok(!('skip' in l), 'skip' in l ? l.skip : '');
    if ('skip' in l) return;
    assert.equal(l.exact, false);
    assert.ok(l.tokens.length >= 3);
    for (const t of l.tokens) {
      assert.ok(t.logprob <= 0 && Number.isFinite(t.logprob));
      assert.ok(t.distribution.length >= 1 && t.distribution.length <= TOP_LOGPROBS + 1);
    }
  });
});
