import type { Command } from 'commander';
import { forcedStages, resolveConfig, runOptions, type GlobalFlags, type StageFlags } from '../options';
import { connectClient, startOrAttach } from '../../../src/temporal/client';
import { watchWorkflow } from '../watch';
import { runWorkflowId, stageWorkflowId } from '../../../workflows/types';
import { analyzeWorkflow, buildWorkflow, exportWorkflow, inferWorkflow, phase5Workflow } from '../../../workflows';
import type { Config, StageName } from '../../../src/config/schema';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { RunOptions } from '../../../src/stages/types';
import { collectSecrets } from '../secrets';
import { StageRunFailed } from '../errors';
import { runKey } from '../run-identity';
import { summarizeResult } from '../summary';
import { describeSkips } from '../skips';

/** What the stage skipped, one summary per stage (stderr: stdout stays the result). */
export function printSkips(stage: StageName | 'run', result: unknown): void {
  for (const line of describeSkips(stage, result)) console.error(line);
}
import { runStartLabels, tryEnsureSearchAttributes } from '../../../src/temporal/search-attributes';

const STAGE_WORKFLOW = {
  build: buildWorkflow,
  export: exportWorkflow,
  infer: inferWorkflow,
  analyze: analyzeWorkflow,
} as const;

function uiLink(address: string, uiPort: number, namespace: string, workflowId: string): string {
  const host = address.slice(0, address.lastIndexOf(':')) || '127.0.0.1';
  return `http://${host}:${uiPort}/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}`;
}

type Flags = GlobalFlags & StageFlags & { detach?: boolean; json?: boolean };

async function startAndFollow(cmd: Command, stage: StageName | 'run'): Promise<void> {
  const flags = cmd.optsWithGlobals<Flags>();
  const { config } = resolveConfig(flags, flags);
  const options = runOptions(flags, config);
  // The run key carries the hash of every input: other inputs → other ids → the work is done, not recalled.
  const run = runKey(config, options);
  const { client, connection } = await connectClient(config);
  try {
    await tryEnsureSearchAttributes(connection, config.temporal.namespace);
    const forced = forcedStages(flags);
    const workflowId = stage === 'run' ? runWorkflowId(run) : stageWorkflowId(run, stage);
    const { handle, outcome } = stage === 'run' ? await startStudy(client, config, run, options, forced) : await startStage(client, config, run, stage, options, forced);
    const link = uiLink(config.temporal.address, config.temporal.ui_port, config.temporal.namespace, workflowId);
    if (outcome === 'started') console.error(`started ${workflowId} — watch it at ${link}`);
    else if (outcome === 'attached-running') console.error(`attached to the running ${workflowId} (started earlier) — ${link}`);
    else console.error(`${workflowId} already finished; showing its result (use --force to run it again) — ${link}`);
    if (flags.detach && outcome !== 'finished-before') {
      console.log(workflowId);
      return;
    }
    const result: unknown = await watchWorkflow(client, handle as WorkflowHandle, run).catch((err: unknown) => {
      throw new StageRunFailed(stage, workflowId, err); // reported with its root cause by reportError
    });
    if (flags.json) console.log(JSON.stringify({ workflowId, result }, null, 2));
    else for (const line of [`${workflowId} finished`, ...summarizeResult(stage, result)]) console.log(line);
    printSkips(stage, result);
  } finally {
    await connection.close();
  }
}

/**
 * A new run of the workflow when a stage is forced, or to retry failed lines (a finished run would just be
 * reported). The start carries the searchable labels (Phase5Run, Phase5Stage, …) and the config memo.
 */
function startOptions(config: Config, forced: StageName[], options: RunOptions, run: string, stage: StageName | 'run') {
  return {
    force: forced.length > 0 || Boolean(options.retryFailed),
    taskQueue: config.temporal.queues.cpu,
    forbiddenValues: collectSecrets(config),
    ...runStartLabels(config, options.datasets, run, stage),
  };
}

/** Start (or attach to) the whole study's workflow, by function reference; `run` is the run key. */
function startStudy(client: Client, config: Config, run: string, options: RunOptions, forced: StageName[]) {
  return startOrAttach(client, phase5Workflow, runWorkflowId(run), [{ run, config, options, forceStages: forced }], startOptions(config, forced, options, run, 'run'));
}

/** Start (or attach to) one stage's workflow, by function reference; `run` is the run key. */
function startStage(client: Client, config: Config, run: string, stage: StageName, options: RunOptions, forced: StageName[]) {
  const workflow: (typeof STAGE_WORKFLOW)[StageName] = STAGE_WORKFLOW[stage];
  return startOrAttach(client, workflow, stageWorkflowId(run, stage), [{ run, config, options, force: forced.includes(stage) }], startOptions(config, forced, options, run, stage));
}

function stageCommand(program: Command, name: StageName | 'run', description: string): Command {
  return program
    .command(name)
    .description(description)
    .option('--force', 'redo outputs even when they are up to date')
    .option('--detach', 'start (or find) the workflow, print its id and return without waiting')
    .action(async (_opts, cmd: Command) => startAndFollow(cmd, name));
}

export function registerStageCommands(program: Command): void {
  stageCommand(program, 'build', 'build corpus.jsonl from OpenITI, embed it and index it (usearch)')
    .option('--max-sentences <n>', 'corpus size cap')
    .option('--corpus-path <file>', 'corpus JSONL (default <results>/phase5/corpus.jsonl)')
    .option('--index-path <file>', 'index file (default <results>/phase5/index.usearch)')
    .option('--openiti-root <dir>', 'OpenITI root (env OPENITI_ROOT)');
  stageCommand(program, 'export', 'retrieve top-k sentences for every OCR line → inference_input.jsonl')
    .option('--limit <n>', 'max samples per dataset')
    .option('--datasets <keys...>', 'subset of dataset keys')
    .option('--top-k <n>', 'sentences to retrieve per sample')
    .option('--min-score <s>', 'minimum cosine similarity')
    .option('--corpus-path <file>', 'corpus JSONL')
    .option('--index-path <file>', 'index file');
  stageCommand(program, 'infer', 'correct every OCR line with the LLM: every study arm (default: RAG condition and zero-shot baseline)')
    .option('--arm <name>', 'run only this study arm (with --import: the arm the file is imported into; default rag)')
    .option('--limit <n>', 'correct only the first n lines of each dataset (a smoke test)')
    .option('--datasets <keys...>', 'subset of dataset keys')
    .option('--phase2-dir <dir>', 'existing zero-shot results; skips the baseline condition')
    .option('--import <file>', 'import a corrections.jsonl produced elsewhere (validated line by line)')
    .option('--retry-failed', 'correct again the lines recorded as failed (removed from corrections.jsonl first)');
  stageCommand(program, 'analyze', 'CER/WER, comparison vs the baseline, retrieval and error analysis, report')
    .option('--datasets <keys...>', 'subset of dataset keys')
    .option('--phase2-dir <dir>', 'zero-shot baseline results directory')
    .option('--missing-lines <mode>', 'a line one study arm has and another lacks: error (default) or ocr (score it as the OCR text, counted)')
    .option('--no-error-analysis', 'skip error_changes.json');
  stageCommand(program, 'run', 'all four stages for a config: every study arm (export once per retrieval, infer per arm, analyze all)')
    .option('--force-stage <stages...>', 'redo these stages (build, export, infer, analyze)')
    .option('--limit <n>', 'max samples per dataset')
    .option('--datasets <keys...>', 'subset of dataset keys')
    .option('--top-k <n>', 'sentences to retrieve per sample')
    .option('--min-score <s>', 'minimum cosine similarity')
    .option('--max-sentences <n>', 'corpus size cap')
    .option('--phase2-dir <dir>', 'existing zero-shot results')
    .option('--openiti-root <dir>', 'OpenITI root (env OPENITI_ROOT)')
    .option('--no-error-analysis', 'skip error_changes.json');
}
