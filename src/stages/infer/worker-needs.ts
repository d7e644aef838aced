/**
 * What a worker needs on its own machine for the stages that run on the queues it serves, checked before it
 * takes a task: the infer queue needs, per arm, the API key variable and an endpoint that answers and serves the
 * arm's model (openai: src/llm/endpoint-health.ts, src/llm/served-models.ts) or the GGUF file (local), with the worker's own endpoint override applied; the build/export queue needs the
 * embedding model. `phase5 worker` prints what is missing at start and `phase5 doctor` lists it per queue.
 */
import { existsSync } from 'node:fs';
import { resolvePath } from '../../config/load';
import type { Config } from '../../config/schema';
import { resolveModelDir } from '../../embed/model-dir';
import { applyEndpointOverride, type EndpointOverride } from '../../llm/endpoint';
import { probeEndpoint } from '../../llm/endpoint-health';
import { redactedUrl } from '../../llm/openai-backend';
import { checkServedModel } from '../../llm/served-models';
import { WorkerSetupError } from '../../util/worker-setup-error';
import { studyPlan } from '../study/plan';

export interface WorkerNeed {
  queue: string;
  /** What is needed and for what: `environment variable HO_KEY (arms rag, zero_shot)`. */
  what: string;
  ok: boolean;
  /** What was found, or what is missing and the fix. */
  detail: string;
}

type Check = { what: string; run: () => Promise<string> | string };

/** The infer queue's checks: one per distinct key variable, endpoint and model file over the arms. */
function inferChecks(config: Config, endpoint: EndpointOverride, env: Record<string, string | undefined>): Check[] {
  const checks = new Map<string, Check & { arms: string[] }>();
  const add = (key: string, arm: string, c: Check) => {
    const seen = checks.get(key);
    if (seen) seen.arms.push(arm);
    else checks.set(key, { ...c, arms: [arm] });
  };
  for (const arm of studyPlan(config, {}).arms) {
    if (arm.corrector) continue; // a non-LLM corrector runs on the CPU queue and needs no LLM
    let backend;
    try {
      backend = applyEndpointOverride(arm.backend(), endpoint);
    } catch (err) {
      if (!(err instanceof WorkerSetupError)) throw err;
      add(`setup:${err.problem}`, arm.name, {
        what: 'LLM model',
        run: () => {
          throw err;
        },
      });
      continue;
    }
    if (backend.type === 'llama') {
      const file = backend.modelPath;
      add(`gguf:${file}`, arm.name, {
        what: 'LLM model',
        run: () => {
          if (!existsSync(file)) throw new WorkerSetupError(`GGUF model not found: ${file}`, 'put it on this worker');
          return 'present';
        },
      });
      continue;
    }
    const variable = backend.apiKeyEnv;
    if (variable) {
      add(`key:${variable}`, arm.name, {
        what: 'API key',
        run: () => {
          if (!env[variable])
            throw new WorkerSetupError(`environment variable ${variable} is not set`, "set it in the worker's environment");
          return 'set';
        },
      });
    }
    const { baseUrl: url, model } = backend;
    const apiKey = variable ? (env[variable] ?? null) : null;
    add(`url:${url}\0${model}`, arm.name, {
      what: `LLM endpoint ${redactedUrl(url)}, model ${model}`,
      run: async () => {
        // Up as the endpoint gate counts it: GET /health 2xx, or GET …/models below 500 where there is no /health.
        const probe = await probeEndpoint(url, AbortSignal.timeout(8000), 3000);
        if (!probe.up)
          throw new Error(`does not answer (${probe.answer}) — start the server, or check infer.openai.base_url / --openai-base-url`);
        const served = await checkServedModel({ baseUrl: url, where: redactedUrl(url), model, apiKey }, AbortSignal.timeout(8000));
        return `answers; ${served}`;
      },
    });
  }
  return [...checks.values()].map((c) => ({ what: `${c.what} (arm${c.arms.length > 1 ? 's' : ''} ${c.arms.join(', ')})`, run: c.run }));
}

function embedChecks(config: Config): Check[] {
  const dir = resolvePath(config.rag.embedding.model_dir);
  return [{ what: `embedding model ${dir}`, run: () => (resolveModelDir(dir), 'present') }];
}

/** Every need of the stages that run on `queues`, checked on this machine. */
export async function checkWorkerNeeds(
  config: Config,
  queues: string[],
  endpoint: EndpointOverride = {},
  env: Record<string, string | undefined> = process.env,
): Promise<WorkerNeed[]> {
  const q = config.temporal.queues;
  const stageQueue = (stage: keyof Config['temporal']['stages']) => q[config.temporal.stages[stage].queue];
  const plan: { queue: string; checks: Check[] }[] = [];
  for (const queue of queues) {
    const checks: Check[] = [];
    if (stageQueue('infer') === queue) checks.push(...inferChecks(config, endpoint, env));
    if (stageQueue('build') === queue || stageQueue('export') === queue) checks.push(...embedChecks(config));
    plan.push({ queue, checks });
  }
  const out: WorkerNeed[] = [];
  for (const { queue, checks } of plan) {
    for (const c of checks) {
      try {
        out.push({ queue, what: c.what, ok: true, detail: await c.run() });
      } catch (err) {
        out.push({ queue, what: c.what, ok: false, detail: (err as Error).message.split('\n')[0] });
      }
    }
  }
  return out;
}

/** One line per missing need: `phase5-gpu cannot run its tasks: API key (arm rag): environment variable HO_KEY is not set — …`. */
export function describeMissing(needs: WorkerNeed[]): string[] {
  return needs.filter((n) => !n.ok).map((n) => `${n.queue} cannot run its tasks: ${n.what}: ${n.detail}`);
}
