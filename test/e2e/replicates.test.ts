/**
 * A study arm with `replicates: 3` end to end: the real infer and analyze workflows on a local Temporal server
 * with an in-process worker and the real activities, the real OpenAI-compatible backend, answered by the
 * simulated GPU box (test/helpers/sim-llm-server.ts) through a proxy that records every request body and makes
 * the answer depend on the seed (seed 1 leaves the odd lines uncorrected), as a sampling model's answer does.
 * Checked: 3× the requests for the arm, with 3 distinct seeds (none for the arm without replicates), 3 stored
 * outputs, arms.json with the replicate mean and the between-replicate SD, tokens and cost, the CLI summary.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities, defaultDeps } from '../../activities';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { summarizeResult } from '../../bin/cli/summary';
import type { ArmsAnalysis } from '../../analysis/study/arms';
import { parseConfig } from '../../src/config/load';
import { createBackend } from '../../src/llm';
import { studyPlan } from '../../src/stages/study/plan';
import { armJson } from '../../src/stages/study/arm-files';
import { analyzeWorkflow, inferWorkflow } from '../../workflows';
import type { AnalyzeResult, ArmResult, StageInput } from '../../workflows/types';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { createLocalEnv } from '../helpers/temporal';

const LINES = 12;
const ocrLine = (i: number) => `قال أبو عثمان ىـ ${i}`;
const goldLine = (i: number) => `قال أبو عثمان ي ${i}`;

describe('replicates end to end: replicates: 3 against the simulated GPU box (real workflows, activities and backend)', function () {
  this.timeout(300000);
  let env: TestWorkflowEnvironment;
  let sim: SimLlmServer;
  let proxy: RecordingProxy;
  const root = mkdtempSync(path.join(os.tmpdir(), 'replicates-e2e-'));

  before(async () => {
    env = await createLocalEnv();
    sim = await startSimLlmServer({ baseMs: 2, concurrency: 4 });
    // Seed 1 answers the odd lines with their OCR text: that replicate differs from the others on those lines.
    proxy = await startRecordingProxy(sim.url, (body, text) => {
      const line = body.messages![body.messages!.length - 1].content;
      return body.seed === 1 && Number(line.split(' ').pop()) % 2 === 1 ? line : text;
    });
  });
  after(async () => {
    await env?.teardown();
    await proxy?.close();
    await sim?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('3 passes with seeds 0, 1, 2 stored apart; arms.json averages them and shows their SD; tokens and cost in arms.json and the summary', async () => {
    const queue = `replicates-${Date.now()}`;
    const config = parseConfig(
      {
        paths: { results_dir: root },
        infer: {
          backend: 'openai',
          shard_size: 4,
          price: { input: 0.2, output: 0.6 },
          openai: { base_url: proxy.url, model: 'sim', api_key_env: 'SIM_REPLICATES_KEY', concurrency: 2, max_retries: 0 },
        },
        analysis: { bootstrap_iterations: 200, permutations: 200 },
        temporal: { queues: { cpu: queue, gpu: queue }, concurrency: { cpu: 2, gpu: 4 }, max_parallel_activities: 4 },
        study: {
          arms: [
            { name: 'zs', prompt: 'zero_shot' },
            { name: 'rep', prompt: 'zero_shot', replicates: 3 },
          ],
        },
      },
      'replicates e2e config',
      { env: {} },
    );
    process.env.SIM_REPLICATES_KEY = 'sim-key';
    // What the export leaves for each arm: arm.json and the lines to correct.
    const rows = Array.from({ length: LINES }, (_, i) =>
      JSON.stringify({ sample_id: `s${String(i).padStart(2, '0')}`, dataset: 'D', ocr_text: ocrLine(i), gt_text: goldLine(i) }),
    );
    for (const arm of studyPlan(config, {}).arms) {
      mkdirSync(arm.dir!, { recursive: true });
      writeFileSync(path.join(arm.dir!, 'arm.json'), JSON.stringify(armJson(arm, undefined)));
      writeFileSync(arm.input, rows.join('\n') + '\n');
    }
    const input: StageInput = { run: queue, config, options: {}, force: false };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: createActivities({ ...defaultDeps(), openBackend: createBackend }),
    });
    const { infer, analyze } = await worker.runUntil(async () => {
      const infer = await env.client.workflow.execute(inferWorkflow, { taskQueue: queue, workflowId: `${queue}-infer`, args: [input] });
      const analyze = await env.client.workflow.execute(analyzeWorkflow, {
        taskQueue: queue,
        workflowId: `${queue}-analyze`,
        args: [input],
      });
      return { infer: infer as Record<string, ArmResult>, analyze: analyze as AnalyzeResult };
    });

    // 3× the requests for the replicated arm, each replicate with its own seed; none for the arm without replicates.
    expect(sim.served()).to.equal(LINES * 4);
    const seeds = proxy.bodies().map((b) => ('seed' in b ? b.seed : 'none'));
    expect(seeds.filter((s) => s === 'none')).to.have.length(LINES);
    for (const s of [0, 1, 2])
      expect(
        seeds.filter((x) => x === s),
        `seed ${s}`,
      ).to.have.length(LINES);
    expect(Object.keys(infer).sort()).to.deep.equal(['rep', 'rep#1', 'rep#2', 'zs']);
    expect([infer['rep#2'].replicate, infer['rep#2'].seed, infer['rep#2'].written]).to.deep.equal([2, 2, LINES]);

    // 3 stored outputs: replicate 0 where an arm writes, the others under replicates/<r>/.
    const armDir = path.join(root, 'arms', 'rep');
    const outputs = [
      path.join(armDir, 'corrections.jsonl'),
      ...[1, 2].map((r) => path.join(armDir, 'replicates', String(r), 'corrections.jsonl')),
    ];
    const corrected = outputs.map((f) =>
      readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).corrected_text as string),
    );
    for (const c of corrected) expect(c).to.have.length(LINES);
    expect(corrected[0]).to.deep.equal(corrected[2]);
    expect(corrected[1].filter((t, i) => t !== corrected[0][i])).to.have.length(LINES / 2);
    expect(existsSync(path.join(root, 'arms', 'zs', 'replicates')), 'no replicates for zs').to.equal(false);

    // arms.json: the replicate mean, each replicate's CER and seed, the between-replicate SD; no replicate as an arm.
    const arms = JSON.parse(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8')) as ArmsAnalysis;
    const rep = arms.arms.find((a) => a.name === 'rep')!;
    expect(arms.arms.map((a) => a.name).sort()).to.deep.equal(['rep', 'zs']);
    expect(arms.contrasts.map((c) => `${c.arm} vs ${c.vs}`)).to.deep.equal(['rep vs zs']);
    expect(rep.replicates!.n).to.equal(3);
    expect(rep.replicates!.seeds).to.deep.equal([0, 1, 2]);
    const [c0, c1, c2] = rep.replicates!.cer;
    expect(c0).to.equal(c2);
    expect(c1).to.be.greaterThan(c0);
    expect(rep.cer).to.be.closeTo((c0 + c1 + c2) / 3, 1e-6);
    const mean = (c0 + c1 + c2) / 3;
    const sd = Math.sqrt([c0, c1, c2].reduce((s, x) => s + (x - mean) ** 2, 0) / 2);
    expect(rep.replicates!.cer_sd).to.be.closeTo(sd, 1e-6);
    expect(rep.usage.records).to.equal(3 * LINES);
    expect(rep.usage.prompt_tokens).to.be.greaterThan(0);
    expect(rep.usage.cost).to.be.closeTo((rep.usage.prompt_tokens * 0.2 + rep.usage.completion_tokens * 0.6) / 1e6, 1e-6);

    // The human summary: each replicate's infer line with its seed, tokens and cost; the usage table after the arms.
    const inferLines = summarizeResult('infer', infer);
    expect(inferLines.find((l) => l.startsWith('infer rep#1 (seed 1): 12 written'))).to.match(/ · [\d,]+ \+ [\d,]+ tokens · cost \S+ → /);
    const analyzeLines = summarizeResult('analyze', analyze);
    const title = analyzeLines.findIndex((l) => l.includes('tokens, latency and cost per arm (all replicates'));
    expect(title, analyzeLines.join('\n')).to.be.greaterThan(-1);
    expect(analyzeLines.slice(title + 2).find((l) => l.trim().startsWith('rep '))).to.match(/^\s*rep\s+3\s+\d\.\d{4}\s+36\s/);
  });
});
