/**
 * The LLM request under the study's control, end to end: a study with a declared few-shot template and decoding
 * parameters, run as 3 replicates, goes through the real infer workflows (local Temporal server, in-process worker, the real HTTP
 * backend) against the simulated GPU box (test/helpers/sim-llm-server.ts), which checks every body as vLLM does
 * and answers as a reasoning model under another model name than the one asked. Every request carries exactly
 * the configured fields (the replicates 3× the requests, with seeds 7, 8, 9), each record names the served model,
 * arm.json the template's sha256, and the reasoning trace stays out of corrected_text.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities, defaultDeps } from '../../activities';
import { analyzeArms } from '../../analysis/study/arms';
import { usageBlocks } from '../../analysis/report/sections/usage';
import { toMarkdown } from '../../analysis/report/markdown';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import { cleanOutput } from '../../src/llm/clean';
import { resolveTemplate } from '../../src/prompts/templates';
import { inferWorkflow } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { simEdit, startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { createLocalEnv } from '../helpers/temporal';

const LINES = ['قالـ أبو عثمان', 'وحدثنى بعض أصحابنا', 'كتاب الحيوان', 'فى صفة الفرس', 'ثم قال الشاعر', 'والعرب تقول'];
const CONTEXT = 'نصوص مرجعية صحيحة:\n1. قال أبو عثمان في كتاب الحيوان';
const FEW_SHOT = {
  version: 'fs1',
  system: 'أنت مصحح نصوص عربية. النصوص المرجعية:\n{retrieval_context}',
  examples: [{ ocr_text: 'قالـ الجاحظ', corrected_text: 'قال الجاحظ' }],
};
const DECODING = {
  temperature: 0.2,
  top_p: 0.95,
  seed: 42,
  max_tokens: 128,
  stop: ['\n\n'],
  extra_body: { chat_template_kwargs: { enable_thinking: false } },
};

describe('e2e: prompt template and decoding reach the box; what it served is recorded', function () {
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let sim: SimLlmServer;
  let results: string;
  before(async () => {
    env = await createLocalEnv();
    sim = await startSimLlmServer({
      models: ['asked/model'],
      servedModel: 'served/weights-v2',
      systemFingerprint: 'fp-sim',
      reasoning: (ocr) => `أفكر في: ${ocr}`,
    });
    results = mkdtempSync(path.join(os.tmpdir(), 'request-layer-'));
    process.env.SIM_BOX_KEY = 'sim-key';
  });
  after(async () => {
    await sim?.close();
    await env?.teardown();
    rmSync(results, { recursive: true, force: true });
  });

  it('sends exactly the configured fields per arm, and records served model, fingerprint, template sha256 and reasoning apart', async () => {
    const queue = `request-layer-${Date.now()}`;
    const config = parseConfig(
      {
        paths: { results_dir: results },
        infer: {
          backend: 'openai',
          openai: { base_url: sim.url, model: 'asked/model', api_key_env: 'SIM_BOX_KEY', adaptive_concurrency: false, concurrency: 2 },
          decoding: DECODING,
          shard_size: 4,
        },
        study: {
          prompts: { few_shot: FEW_SHOT },
          arms: [
            { name: 'fs', prompt: 'few_shot', decoding: { seed: 7 }, replicates: 3 },
            { name: 'zs', prompt: 'zero_shot' },
          ],
        },
        temporal: { queues: { cpu: queue, gpu: queue } },
      },
      'request-layer.yaml',
      { env: {} },
    );
    for (const arm of ['fs', 'zs']) {
      mkdirSync(path.join(results, 'arms', arm), { recursive: true });
      const rows = LINES.map((ocr, i) => ({ sample_id: `d/${i}`, dataset: 'd', ocr_text: ocr, gt_text: ocr, retrieval_context: CONTEXT }));
      writeFileSync(path.join(results, 'arms', arm, 'inference_input.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    }
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: createActivities(defaultDeps()),
    });
    const input: StageInput = { run: 'request-layer', config, options: {}, force: false };
    await worker.runUntil(
      env.client.workflow.execute(inferWorkflow, { taskQueue: queue, workflowId: `request-layer-${Date.now()}`, args: [input] }),
    );

    expect(sim.refused()).to.deep.equal([]);
    const requests = sim.requests();
    expect(requests).to.have.length(4 * LINES.length); // fs: 3 replicates; zs: 1
    const expectedKeys = ['model', 'messages', 'chat_template_kwargs', 'temperature', 'max_tokens', 'top_p', 'seed', 'stop'];
    for (const r of requests) {
      expect(Object.keys(r).sort()).to.deep.equal([...expectedKeys].sort());
      expect(r).to.deep.include({ model: 'asked/model', temperature: 0.2, top_p: 0.95, max_tokens: 128, stop: ['\n\n'] });
      expect(r.chat_template_kwargs).to.deep.equal({ enable_thinking: false });
    }
    const fewShot = requests.filter((r) => r.messages.length === 4);
    expect(fewShot).to.have.length(3 * LINES.length);
    const seeds = new Map<unknown, number>();
    for (const r of fewShot) seeds.set(r.seed, (seeds.get(r.seed) ?? 0) + 1);
    expect([...seeds.entries()].sort()).to.deep.equal([
      [7, LINES.length],
      [8, LINES.length],
      [9, LINES.length],
    ]);
    expect(requests.filter((r) => r.messages.length === 2).map((r) => r.seed)).to.deep.equal(LINES.map(() => 42));
    expect(fewShot[0].messages.slice(0, 3)).to.deep.equal([
      { role: 'system', content: FEW_SHOT.system.replace('{retrieval_context}', CONTEXT) },
      { role: 'user', content: 'قالـ الجاحظ' },
      { role: 'assistant', content: 'قال الجاحظ' },
    ]);

    const fsRecords = readFileSync(path.join(results, 'arms', 'fs', 'corrections.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(fsRecords).to.have.length(LINES.length);
    for (const [i, r] of fsRecords.entries()) {
      expect(r).to.include({
        model: 'asked/model',
        served_model: 'served/weights-v2',
        system_fingerprint: 'fp-sim',
        finish_reason: 'stop',
        prompt_type: 'rag',
        prompt_version: 'fs1',
        reasoning: `أفكر في: ${LINES[i]}`,
        error: null,
      });
      expect(r.corrected_text).to.equal(cleanOutput(simEdit(LINES[i]), { source: LINES[i] }));
      expect(r.corrected_text as string).to.not.contain('أفكر');
    }
    for (const r of [1, 2]) {
      const file = path.join(results, 'arms', 'fs', 'replicates', String(r), 'corrections.jsonl');
      const records = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records.map((x) => x.served_model)).to.deep.equal(LINES.map(() => 'served/weights-v2'));
    }
    const armJson = JSON.parse(readFileSync(path.join(results, 'arms', 'fs', 'arm.json'), 'utf8'));
    expect(armJson).to.deep.include({ replicates: 3, seeds: [7, 8, 9] });
    const template = resolveTemplate('few_shot', { few_shot: FEW_SHOT })!;
    expect(armJson.prompt_template).to.deep.equal({ name: 'few_shot', version: 'fs1', sha256: template.sha256 });
    expect(armJson.decoding).to.deep.include({ seed: 7, temperature: 0.2 });
    expect(armJson.backend).to.include({ type: 'openai', model: 'asked/model', api_key_env: 'SIM_BOX_KEY' });
    expect(JSON.stringify(armJson)).to.not.contain('sim-key');
    // The share of the prompts a prefix cache could reuse reaches arms.json and the report's usage table.
    expect(armJson.prompt_prefix.share).to.be.a('number').within(0, 1);
    const analysis = await analyzeArms({ resultsDir: results, baseline: 'zs', write: false });
    const fs = analysis.arms.find((a) => a.name === 'fs')!;
    expect(fs.usage.prompt_prefix_share).to.equal(armJson.prompt_prefix.share);
    expect(toMarkdown(usageBlocks(analysis)))
      .to.include('Shared prompt prefix')
      .and.include(`${(armJson.prompt_prefix.share * 100).toFixed(1)} %`);
    const manifest = JSON.parse(readFileSync(path.join(results, 'study_manifest.json'), 'utf8'));
    expect(manifest.config.study.prompts.few_shot).to.deep.equal(FEW_SHOT);
    expect(manifest.config.infer.decoding).to.deep.equal(DECODING);
    expect(JSON.stringify(manifest)).to.not.contain('sim-key');
  });
});
