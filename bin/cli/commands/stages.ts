import type { Command } from 'commander';
import { forcedStages, resolveConfig, runOptions, type GlobalFlags, type StageFlags } from '../options';
import { connectClient, startOrAttach } from '../../../src/temporal/client';
import { workflowUiLink } from '../../../src/temporal/ui-link';
import { watchWorkflow } from '../watch';
import { runWorkflowId, stageWorkflowId } from '../../../workflows/types';
import { analyzeWorkflow, batchInferWorkflow, buildWorkflow, exportWorkflow, inferWorkflow, phase5Workflow } from '../../../workflows';
import type { Config, StageName } from '../../../src/config/schema';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { RunOptions } from '../../../src/stages/shared/types';
import { collectSecrets } from '../secrets';
import { StageRunFailed } from '../errors';
import { runKey } from '../run-identity';
import { replacedFile } from '../finished-files';
import { writeRunMarker } from '../../../src/stages/shared/run-marker';
import { summarizeResult } from '../summary';
import { describeSkips } from '../skips';
import { addRenamedFlags } from '../renamed-flags';

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

type Flags = GlobalFlags & StageFlags & { detach?: boolean; json?: boolean };

async function startAndFollow(cmd: Command, stage: StageName | 'run'): Promise<void> {
  const flags = cmd.optsWithGlobals<Flags>();
  const { config } = resolveConfig(flags, flags);
  // The run key carries the hash of every input: other inputs → other ids → the work is done, not recalled.
  const requested = runOptions(flags, config);
  const run = runKey(config, requested);
  // Workers check that they see the files this marker records (the key is computed before its path is added).
  const options = writeRunMarker(config, requested, run);
  const { client, connection } = await connectClient(config);
  try {
    await tryEnsureSearchAttributes(connection, config.temporal.namespace);
    const forced = forcedStages(flags);
    const workflowId = stage === 'run' ? runWorkflowId(run) : stageWorkflowId(run, stage);
    const start = (again: boolean) =>
      stage === 'run'
        ? startStudy(client, config, run, options, forced, again)
        : startStage(client, config, run, stage, options, forced, again);
    let { handle, outcome } = await start(false);
    if (outcome === 'finished-before') {
      // Its files may have been replaced since (another run, a hand edit): then it runs again, never shows them.
      const replaced = await replacedFile(await handle.result());
      if (replaced) {
        console.error(`${workflowId} finished before, but ${replaced}: running it again`);
        ({ handle, outcome } = await start(true));
      }
    }
    const link = workflowUiLink(config.temporal, workflowId);
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
function startOptions(config: Config, forced: StageName[], options: RunOptions, run: string, stage: StageName | 'run', again = false) {
  return {
    // Batch files and imports depend on what the corrections hold now: each is a new run.
    force: again || forced.length > 0 || Boolean(options.retryFailed || options.batchOut || options.batchIn),
    taskQueue: config.temporal.queues.cpu,
    forbiddenValues: collectSecrets(config),
    ...runStartLabels(config, options.datasets, run, stage),
  };
}

/** Start (or attach to) the whole study's workflow, by function reference; `run` is the run key. */
function startStudy(client: Client, config: Config, run: string, options: RunOptions, forced: StageName[], again: boolean) {
  return startOrAttach(
    client,
    phase5Workflow,
    runWorkflowId(run),
    [{ run, config, options, forceStages: forced }],
    startOptions(config, forced, options, run, 'run', again),
  );
}

/** `phase5 infer` with batch files, or with the Batch API as its backend: the batch workflow (docs/batch.md). */
function usesBatchWorkflow(config: Config, stage: StageName, options: RunOptions): boolean {
  return stage === 'infer' && Boolean(options.batchOut || options.batchIn || config.infer.backend === 'openai_batch');
}

/** Start (or attach to) one stage's workflow, by function reference; `run` is the run key. */
function startStage(
  client: Client,
  config: Config,
  run: string,
  stage: StageName,
  options: RunOptions,
  forced: StageName[],
  again: boolean,
) {
  const workflow: (typeof STAGE_WORKFLOW)[StageName] | typeof batchInferWorkflow = usesBatchWorkflow(config, stage, options)
    ? batchInferWorkflow
    : STAGE_WORKFLOW[stage];
  return startOrAttach(
    client,
    workflow,
    stageWorkflowId(run, stage),
    [{ run, config, options, force: forced.includes(stage) }],
    startOptions(config, forced, options, run, stage, again),
  );
}

/**
 * Every stage flag, declared once per meaning: its description and the stages it applies to. `phase5 run` takes
 * every flag of the stages it runs, except those marked `notInRun` (with the reason).
 */
export const STAGE_FLAGS: readonly { flags: string; description: string; stages: readonly StageName[]; notInRun?: string }[] = [
  {
    flags: '--max-sentences <n>',
    description: 'corpus size cap (corpus.max_sentences; export: selects the corpus and index built with it)',
    stages: ['build', 'export'],
  },
  { flags: '--openiti-root <dir>', description: 'OpenITI root (env OPENITI_ROOT)', stages: ['build'] },
  {
    flags: '--corpus-path <file>',
    description: 'corpus JSONL (default <results>/corpora/<fingerprint>/corpus.jsonl)',
    stages: ['build', 'export'],
  },
  {
    flags: '--index-path <file>',
    description: 'index file (default <results>/corpora/<fingerprint>/index-<fingerprint>.usearch)',
    stages: ['build', 'export'],
  },
  {
    flags: '--limit <n>',
    description: 'only the first n lines of each dataset, in input order (a smoke test, not a pilot: see --sample)',
    stages: ['export', 'infer'],
  },
  {
    flags: '--sample <n>',
    description: 'a random pilot: n lines of each dataset, drawn as whole pages/blocks (with --seed)',
    stages: ['export', 'infer'],
  },
  {
    flags: '--seed <s>',
    description: "the pilot's random seed (--sample): the same seed draws the same lines",
    stages: ['export', 'infer'],
  },
  { flags: '--datasets <keys...>', description: 'subset of dataset keys', stages: ['export', 'infer', 'analyze'] },
  { flags: '--top-k <n>', description: 'sentences to retrieve per line', stages: ['export'] },
  { flags: '--min-score <s>', description: 'minimum cosine similarity of a retrieved sentence', stages: ['export'] },
  {
    flags: '--baseline-dir <dir>',
    description: 'existing zero-shot baseline results: infer skips the baseline arm, analyze reads them',
    stages: ['infer', 'analyze'],
  },
  {
    flags: '--retry-failed',
    description: 'correct again the lines recorded as failed (removed from corrections.jsonl first)',
    stages: ['infer'],
  },
  {
    flags: '--arm <name>',
    description: 'run only this study arm (with --import: the arm the file is imported into; default rag)',
    stages: ['infer'],
    notInRun: 'a study runs and analyses every arm',
  },
  {
    flags: '--import <file>',
    description: 'import a corrections.jsonl produced elsewhere (validated line by line)',
    stages: ['infer'],
    notInRun: 'an import replaces the infer stage, it is not a step of a study run',
  },
  {
    flags: '--batch-out <dir>',
    description: 'write every arm × replicate request not yet answered as OpenAI Batch JSONL files in dir (docs/batch.md)',
    stages: ['infer'],
    notInRun: 'batch files replace the infer stage, they are not a step of a study run',
  },
  {
    flags: '--batch-in <files...>',
    description: 'import batch output files (OpenAI Batch API, vLLM run_batch) as corrections (docs/batch.md)',
    stages: ['infer'],
    notInRun: 'an import replaces the infer stage, it is not a step of a study run',
  },
  {
    flags: '--missing-lines <mode>',
    description: 'a line one study arm has and another lacks: error (default) or ocr (score it as the OCR text, counted)',
    stages: ['analyze'],
  },
  { flags: '--no-error-analysis', description: 'skip error_changes.json', stages: ['analyze'] },
];

/** The flags of a stage command, or of `run` (every stage's, but those marked notInRun), in table order. */
export function flagsOf(command: StageName | 'run'): (typeof STAGE_FLAGS)[number][] {
  return STAGE_FLAGS.filter((f) => (command === 'run' ? !f.notInRun : f.stages.includes(command)));
}

function stageCommand(program: Command, name: StageName | 'run', description: string): Command {
  const cmd = program
    .command(name)
    .description(description)
    .option('--force', 'redo outputs even when they are up to date')
    .option('--detach', 'start (or find) the workflow, print its id and return without waiting')
    .action(async (_opts, c: Command) => startAndFollow(c, name));
  if (name === 'run') cmd.option('--force-stage <stages...>', 'redo these stages (build, export, infer, analyze)');
  for (const f of flagsOf(name)) cmd.option(f.flags, f.description);
  return name === 'infer' || name === 'analyze' || name === 'run' ? addRenamedFlags(cmd) : cmd;
}

export function registerStageCommands(program: Command): void {
  stageCommand(program, 'build', 'build corpus.jsonl from OpenITI, embed it and index it (usearch)');
  stageCommand(program, 'export', 'retrieve top-k sentences for every OCR line → inference_input.jsonl');
  stageCommand(program, 'infer', 'correct every OCR line with the LLM: every study arm (default: RAG and the zero-shot baseline)');
  stageCommand(program, 'analyze', 'CER/WER, comparison vs the baseline, retrieval and error analysis, report');
  stageCommand(program, 'run', 'all four stages for a config: every study arm (export once per retrieval, infer per arm, analyze all)');
}
