/**
 * `phase5 demo` (run by `npm run demo`): the demo study end to end on one machine. Starts the embedded
 * Temporal server if none answers, runs a worker for both queues inside this process, runs phase5Workflow on
 * configs/demo.yaml, and leaves the server running for inspection in the UI.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { PROJECT_ROOT, resolvePath, resultDirs } from '../../../src/config/load';
import type { Config } from '../../../src/config/schema';
import { resolveConfig, runOptions, type GlobalFlags } from '../options';
import { connectClient, startOrAttach } from '../../../src/temporal/client';
import { workflowUiLink } from '../../../src/temporal/ui-link';
import { runStartLabels, tryEnsureSearchAttributes } from '../../../src/temporal/search-attributes';
import { startServer, temporalHealthy } from '../../../src/temporal/server';
import { watchWorkflow } from '../watch';
import { runWorkflowId, type Phase5Input } from '../../../workflows/types';
import { phase5Workflow } from '../../../workflows';
import { collectSecrets } from '../secrets';
import { runKey } from '../run-identity';

const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures');

/** Without ../shared/data the demo runs on the project's own fixtures (and says so). */
export function demoDataFallback(config: Config): { config: Config; notes: string[] } {
  const notes: string[] = [];
  const out = structuredClone(config);
  if (!existsSync(resolvePath(out.data.openiti_root))) {
    notes.push(`OpenITI not found at ${resolvePath(out.data.openiti_root)}: using the fixture corpus test/fixtures/openiti/corpus`);
    out.data.openiti_root = path.join(FIXTURES, 'openiti', 'corpus');
    delete out.data.openiti_metadata;
  }
  const missing = Object.entries(out.datasets).filter(([, d]) => !existsSync(resolvePath(d.path)));
  if (missing.length === Object.keys(out.datasets).length) {
    notes.push(`OCR datasets not found (${missing.map(([k]) => k).join(', ')}): using the fixture dataset test/fixtures/demo/ocr.jsonl`);
    out.datasets = { 'fixture-ocr': { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } };
  } else {
    for (const [k] of missing) {
      notes.push(`dataset ${k} not found: left out of the demo`);
      delete out.datasets[k];
    }
  }
  return { config: out, notes };
}

// long: one commander declaration (flags, help) and its action, as the other commands are declared
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run the demo study end to end (starts Temporal and a worker as needed; leaves the server running)')
    .option('--limit <n>', 'OCR lines per dataset', '6')
    .option('--force', 'run the demo again even if it finished before')
    .action(async (opts: { limit: string; force?: boolean }, cmd: Command) => {
      const flags = cmd.optsWithGlobals<GlobalFlags & { limit: string; force?: boolean }>();
      const loaded = resolveConfig({
        ...flags,
        config: flags.config && flags.config !== 'configs/config.yaml' ? flags.config : path.join(PROJECT_ROOT, 'configs', 'demo.yaml'),
      });
      const { config, notes } = demoDataFallback(loaded.config);
      for (const n of notes) console.error(`demo: ${n}`);
      const options = runOptions({ limit: opts.limit }, config);
      const started = Date.now();

      if (!(await temporalHealthy(config.temporal.address))) {
        console.error(`demo: no Temporal at ${config.temporal.address}; starting the embedded dev server…`);
        const { status } = await startServer(config);
        console.error(`demo: Temporal dev server running (pid ${status.pid}), UI ${status.uiUrl}`);
      } else {
        console.error(`demo: using the Temporal server already running at ${config.temporal.address}`);
      }

      const { createWorkers } = await import('../worker-runtime');
      console.error('demo: starting a worker for phase5-cpu and phase5-gpu in this process…');
      const { workers, connection: workerConnection } = await createWorkers({
        config,
        queues: [config.temporal.queues.cpu, config.temporal.queues.gpu],
      });
      const running = workers.map((w) => w.run());

      const { client, connection } = await connectClient(config);
      const run = runKey(config, options); // the same run identity as `phase5 run` (see run-identity.ts)
      const workflowId = runWorkflowId(run);
      await tryEnsureSearchAttributes(connection, config.temporal.namespace);
      const link = workflowUiLink(config.temporal, workflowId);
      try {
        const input: Phase5Input = { run, config, options, forceStages: opts.force ? ['build', 'export', 'infer', 'analyze'] : [] };
        const { handle, outcome } = await startOrAttach(client, phase5Workflow, workflowId, [input], {
          force: opts.force,
          taskQueue: config.temporal.queues.cpu,
          forbiddenValues: collectSecrets(config),
          ...runStartLabels(config, options.datasets, run, 'run'),
        });
        console.error(
          outcome === 'started'
            ? `demo: started workflow ${workflowId} — watch it at ${link}`
            : outcome === 'attached-running'
              ? `demo: attached to the running workflow ${workflowId} — ${link}`
              : `demo: ${workflowId} already finished; showing its result (npm run demo -- --force runs it again)`,
        );
        const result = await watchWorkflow(client, handle, run);
        if (flags.json) return void console.log(JSON.stringify({ workflowId, result }, null, 2));
        const analyze = result.analyze;
        console.log('\nDemo study finished.');
        console.log(`  workflow:  ${workflowId}  (${link})`);
        console.log(`  report:    ${analyze?.report ?? path.join(resultDirs(config).root, 'study', 'report.html')}`);
        console.log(`  results:   ${resultDirs(config).root}`);
        if (analyze?.arms) {
          const { armsTableLines } = await import('../summary');
          console.log('');
          for (const line of armsTableLines(analyze.arms)) console.log(`  ${line}`);
        }
        if (analyze?.datasets?.length) {
          console.log('\n  dataset                              n   OCR CER  zero-shot      RAG     ΔCER');
          const f = (x: number | null) => (x === null ? '     -' : x.toFixed(4).padStart(8));
          for (const d of analyze.datasets) {
            console.log(
              `  ${d.dataset.padEnd(32)} ${String(d.n).padStart(5)} ${f(d.ocr_cer)} ${f(d.zero_shot_cer)} ${f(d.rag_cer)} ${d.invalid_reason ? 'not valid' : f(d.delta_cer)}`,
            );
            if (d.invalid_reason) console.log(`    not valid: ${d.invalid_reason}`);
          }
        }
        if ((analyze?.warnings ?? []).some((w) => w.includes('too few clusters'))) {
          console.log(
            `  (${opts.limit} lines per book: too few for confidence intervals, p-values or detectable effects — the figures above are estimates alone; docs/statistics.md "Too few clusters")`,
          );
        }
        if (analyze?.arms || analyze?.datasets?.length) {
          console.log(
            '  (the demo LLM is a 135M-parameter model: it cannot really correct Arabic; point `infer` at a real model for a study)',
          );
        }
        console.log(
          `\n  took ${((Date.now() - started) / 1000).toFixed(0)} s. The Temporal server is still running for inspection; stop it with \`npx phase5 server stop\`.`,
        );
      } finally {
        await connection.close();
        workers.forEach((w) => w.shutdown());
        await Promise.allSettled(running);
        await workerConnection.close();
      }
    });
}
