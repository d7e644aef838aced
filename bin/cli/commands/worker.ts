import type { Command } from 'commander';
import { resolveConfig, UsageError, type GlobalFlags } from '../options';
import { connectClient } from '../../../src/temporal/client';
import { ensureSearchAttributes, searchAttributesRefused } from '../../../src/temporal/search-attributes';
import { describeSecurity } from '../../../src/temporal/connection-options';
import { temporalConnectOptions } from '../../../src/temporal/connect';
import { checkWorkerNeeds, describeMissing } from '../../../src/stages/infer/worker-needs';
import {
  describeEndpointOverride,
  endpointOverrideFrom,
  EndpointOverrideError,
  ENDPOINT_ENV,
  type EndpointOverride,
} from '../../../src/llm/endpoint';

interface WorkerFlags {
  queues?: string;
  openaiBaseUrl?: string;
  openaiModel?: string;
  openaiApiKeyEnv?: string;
  localModelPath?: string;
}

/** The worker's own LLM endpoint from its flags and PHASE5_* variables; a bad value is a usage error. */
export function workerEndpoint(opts: WorkerFlags, env: Record<string, string | undefined> = process.env): EndpointOverride {
  try {
    return endpointOverrideFrom(
      { baseUrl: opts.openaiBaseUrl, model: opts.openaiModel, apiKeyEnv: opts.openaiApiKeyEnv, modelPath: opts.localModelPath },
      env,
    );
  } catch (err) {
    if (err instanceof EndpointOverrideError) throw new UsageError(err.message);
    throw err;
  }
}

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('serve task queues (CPU, GPU or both) until SIGINT/SIGTERM; run more on other machines to scale out')
    .option('--queues <list>', 'comma-separated task queues (default: both queues of the config)')
    .option(
      '--openai-base-url <url>',
      `this worker's own OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1, instead of infer.openai.base_url (env ${ENDPOINT_ENV.baseUrl})`,
    )
    .option('--openai-model <name>', `model name on that server, instead of infer.openai.model (env ${ENDPOINT_ENV.model})`)
    .option(
      '--openai-api-key-env <NAME>',
      `NAME of the environment variable holding that server's key, never the key (env ${ENDPOINT_ENV.apiKeyEnv})`,
    )
    .option(
      '--local-model-path <file.gguf>',
      `this worker's GGUF for the local backend, instead of infer.local.model_path (env ${ENDPOINT_ENV.modelPath})`,
    )
    .action(async (opts: WorkerFlags, cmd: Command) => {
      const { config } = resolveConfig(cmd.optsWithGlobals<GlobalFlags>());
      const known = [config.temporal.queues.cpu, config.temporal.queues.gpu];
      const queues = opts.queues
        ? opts.queues
            .split(',')
            .map((q) => q.trim())
            .filter(Boolean)
        : known;
      if (queues.length === 0) throw new UsageError('--queues: give at least one task queue');
      const endpoint = workerEndpoint(opts);
      // Fail fast with the one-line message when the server is down.
      const { connection } = await connectClient(config);
      const added = await ensureSearchAttributes(connection, config.temporal.namespace)
        .catch((err: unknown) => {
          console.error(`worker: ${searchAttributesRefused(err)}`);
          return [];
        })
        .finally(() => connection.close());
      if (added.length) console.error(`worker: registered search attributes ${added.join(', ')}`);
      const security = describeSecurity(temporalConnectOptions(config));
      const over = security === 'plain TCP' ? '' : ` over ${security}`; // the dev server's line stays as it was
      console.error(`worker: serving ${queues.join(', ')} at ${config.temporal.address}${over} (Ctrl-C to stop)`);
      const override = describeEndpointOverride(endpoint);
      if (override) console.error(`worker: ${override}`);
      // Said before the first task: a task this worker cannot run is retried on the others, then fails the run.
      const needs = await checkWorkerNeeds(config, queues, endpoint);
      for (const line of describeMissing(needs)) console.error(`worker: ${line}`);
      if (needs.length && needs.every((n) => n.ok))
        console.error(`worker: ${needs.map((n) => `${n.what.replace(/ \(arms? .*\)$/, '')} ${n.detail}`).join(', ')}`);
      const { runWorkers } = await import('../worker-runtime'); // heavy: native modules, webpack
      await runWorkers({ config, queues, endpoint });
    });
}
