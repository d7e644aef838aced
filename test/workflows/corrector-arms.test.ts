/**
 * Non-LLM arms through the real infer workflows (docs/correctors.md): a study with a `collate` and a `lexicon` arm
 * runs every shard and merge on the CPU queue, opens no LLM backend, and writes correction records like an LLM
 * arm's (`model: collate@1` …) with what the corrector did. A worker on the GPU queue counts the activity tasks it
 * is given; the case that must fail without the feature is an LLM arm, which that worker serves.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities, defaultDeps } from '../../activities';
import { analyzeProvenance } from '../../analysis/study/provenance';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { parseConfig } from '../../src/config/load';
import { writeArmDirs } from '../../src/stages/study/arm-files';
import { studyPlan } from '../../src/stages/study/plan';
import { stagePaths } from '../../src/stages/study/layout';
import type { Config } from '../../src/config/schema';
import { inferWorkflow } from '../../workflows';
import type { StageInput } from '../../workflows/types';
import { createLocalEnv } from '../helpers/temporal';
import type { LlmBackend } from '../../src/llm';

const WITNESS = 'قال أبو محمد عبد الله بن مسلم بن قتيبة أما بعد فإني رأيت أكثر أهل زماننا';
const OCR = 'قال أبو محمد عبد الله بن مسلم بن فتيبة أما بعد فإني رأيت أكثر أهل زماتنا';

/** Answers with the OCR line (the last user message). */
function echoBackend(): LlmBackend {
  return {
    id: 'echo',
    model: 'echo',
    concurrency: 4,
    async complete(messages) {
      return { text: messages[messages.length - 1].content, promptTokens: 1, completionTokens: 1, latencyMs: 0, attempts: 1 };
    },
    async close() {},
  };
}

function configFor(results: string, cpu: string, gpu: string, arms: unknown[]): Config {
  return parseConfig(
    {
      paths: { results_dir: results },
      datasets: { d: { type: 'jsonl', path: path.join(results, 'ocr.jsonl') } },
      infer: { backend: 'openai', shard_size: 2 },
      study: { arms },
      temporal: { queues: { cpu, gpu }, concurrency: { cpu: 4, gpu: 4 } },
    },
    'corrector arms test config',
    { env: {} },
  );
}

/** Each arm's input (4 lines, the witness as context) and the run's corpus (the lexicon's vocabulary). */
function writeInputs(results: string, arms: string[], corpusFile: string): void {
  const rows = [0, 1, 2, 3].map((i) => ({
    sample_id: `d-${i}`,
    dataset: 'd',
    ocr_text: OCR,
    gt_text: WITNESS,
    prompt_type: 'rag',
    prompt_version: 'p5v1',
    retrieval_context: `نصوص مرجعية صحيحة:\n1. ${WITNESS}`,
    retrieved_k: 1,
    retrieval_scores: [0.9],
    retrieval_sources: [{ source_uri: '0276IbnQutaybaDinawari.AdabKatib.Shamela0012345-ara1', idx: 7, date: 276 }],
  }));
  for (const arm of arms) {
    mkdirSync(path.join(results, 'arms', arm), { recursive: true });
    writeFileSync(path.join(results, 'arms', arm, 'inference_input.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
  mkdirSync(path.dirname(corpusFile), { recursive: true });
  const corpus = Array.from({ length: 5 }, (_, idx) => ({ text: WITNESS, source_uri: 'x', date: 276, char_len: WITNESS.length, idx }));
  writeFileSync(corpusFile, corpus.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

describe('non-LLM arms in the infer workflow (local Temporal server)', function () {
  this.timeout(300000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await createLocalEnv();
    await workflowBundle();
  });
  after(async () => env?.teardown());

  /** Run the infer workflow with one worker per queue; returns the GPU worker's activity tasks and LLM opens. */
  async function run(arms: unknown[], names: string[]) {
    const results = mkdtempSync(path.join(os.tmpdir(), 'corrector-arms-'));
    const stamp = Date.now();
    const [cpu, gpu] = [`cpu-${stamp}`, `gpu-${stamp}`];
    const config = configFor(results, cpu, gpu, arms);
    writeInputs(results, names, stagePaths(config, {}).corpus);
    const calls = { gpuTasks: [] as string[], llmOpens: 0 };
    const deps = {
      ...defaultDeps(),
      openBackend: async () => {
        calls.llmOpens++;
        return echoBackend();
      },
    };
    const counted = Object.fromEntries(
      Object.entries(createActivities(deps)).map(([name, fn]) => [
        name,
        (...a: unknown[]) => {
          calls.gpuTasks.push(name);
          return (fn as (...x: unknown[]) => unknown)(...a);
        },
      ]),
    );
    const bundle = await workflowBundle();
    const cpuWorker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: cpu,
      workflowBundle: bundle,
      activities: createActivities(deps),
    });
    const gpuWorker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: gpu,
      workflowBundle: bundle,
      activities: counted,
    });
    const input: StageInput = { run: `corr-${stamp}`, config, options: {}, force: false };
    const result = await cpuWorker.runUntil(
      gpuWorker.runUntil(env.client.workflow.execute(inferWorkflow, { taskQueue: cpu, workflowId: `corr-${stamp}`, args: [input] })),
    );
    return { calls, results, config, result: result as Record<string, { output: string; model: string; written: number }> };
  }

  it('collate and lexicon arms run on the CPU queue only, open no LLM, and write correction records', async () => {
    const arms = [
      { name: 'collate', corrector: 'collate' },
      { name: 'lexicon', corrector: 'lexicon', retrieval: { mode: 'none' }, lexicon: { min_count: 2 } },
    ];
    const { calls, result } = await run(arms, ['collate', 'lexicon']);
    expect(calls).to.deep.equal({ gpuTasks: [], llmOpens: 0 });
    const records = (arm: string) =>
      readFileSync(result[arm].output, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(result.collate).to.include({ model: 'collate@1', written: 4 });
    for (const r of records('collate')) {
      expect(r).to.include({ model: 'collate@1', corrected_text: WITNESS, error: null, prompt_type: 'rag' });
      expect(r.corrector).to.deep.include({ reason: 'one_witness' });
    }
    for (const r of records('lexicon')) {
      expect(r).to.include({ model: 'lexicon@1', corrected_text: WITNESS, prompt_type: 'zero_shot' });
      expect((r.corrector as { changes: { from: string; to: string }[] }).changes.map((c) => c.from)).to.deep.equal(['فتيبة', 'زماتنا']);
    }
  });

  it('the "when" analysis applies: ΔCER of the collate arm split by gold passage in context', async () => {
    const arms = [
      { name: 'identity', prompt: 'zero_shot' },
      { name: 'collate', corrector: 'collate' },
    ];
    const { results, config } = await run(arms, ['identity', 'collate']);
    await writeArmDirs(studyPlan(config, {}).arms, []); // arm.json (export writes it; this test writes the inputs itself)
    const p = await analyzeProvenance({
      resultsDir: results,
      baseline: 'identity',
      sources: { d: '0276IbnQutaybaDinawari.AdabKatib*' },
      write: false,
    });
    const collate = p.arms.find((a) => a.arm === 'collate')!;
    expect(collate.gold_in_context_rate).to.equal(1);
    expect(collate.by_gold_in_context.yes.lines).to.equal(4);
    expect(collate.by_gold_in_context.yes.delta!).to.be.lessThan(0);
    expect(collate.by_gold_in_context.yes.cer).to.equal(0);
  });

  it('an LLM arm, by contrast, runs its shards on the GPU queue and opens its LLM', async () => {
    const { calls } = await run([{ name: 'llm' }], ['llm']);
    expect(calls.gpuTasks).to.include('inferShard');
    expect(calls.llmOpens).to.be.greaterThan(0);
  });
});
