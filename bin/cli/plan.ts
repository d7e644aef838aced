/**
 * `phase5 plan` (docs/plan.md): what a run will send and what it can detect, before the first correction —
 * per arm its lines, replicates, requests, prompt tokens (the endpoint's tokenizer, else an estimate) and
 * completion budget; the expected duration (`--lines-per-s`, else a short throughput probe) and cost
 * (`infer.price`); per planned contrast the detectable |ΔCER| and, with a target, the lines needed. Without
 * the export the plan runs it first, in this process (CPU only: retrieval, never the LLM).
 */
import { optionsFrom as probeOptionsFrom } from '../../src/stages/probe/options';
import { probePlan, type ProbeJobPlan } from '../../src/stages/probe/plan';
import { existsSync } from 'node:fs';
import type { Config } from '../../src/config/schema';
import type { InferenceInputRow } from '../../src/llm/records';
import { armRequests, armRows, maxTokensOf, overContextNote, replicatesOf, type ArmRequests } from '../../src/plan/arm-requests';
import { serverNotes } from '../../src/plan/server-notes';
import { armServer } from '../../src/stages/infer/arm-server';
import { armRequestDecoding } from '../../src/stages/infer/backend';
import { endpointCounter, estimateCounter, type TokenCounter } from '../../src/plan/prompt-tokens';
import { probeThroughput, type Throughput } from '../../src/plan/throughput';
import { correctionPrompt } from '../../src/llm/correction-calls';
import type { ArmRun } from '../../src/stages/study/arms';
import { optionsFrom as exportOptionsFrom, run as runExport } from '../../src/stages/export/export';
import { optionsFrom as inferOptionsFrom } from '../../src/stages/infer/infer';
import { openExportRetriever } from '../../src/stages/build/retriever';
import { studyPlan } from '../../src/stages/study/plan';
import type { RunOptions } from '../../src/stages/shared/types';
import { clusterSpecOf } from '../../src/datasets/sample';
import { resolveNormalization } from '../../src/text/profiles';
import { planContrasts, type ContrastPlan } from '../../analysis/plan/contrasts';

/** Two-sided α of every test of the analysis (docs/statistics.md). */
export const ALPHA = 0.05;

export interface PlanFlags {
  linesPerS?: number;
  targetMde?: number;
  /** False: no throughput probe (`--no-probe`). */
  probe?: boolean;
  /** Told what is happening (export first, probe); silent by default. */
  log?: (line: string) => void;
}

export interface PlanTotals {
  requests: number;
  prompt_tokens: number;
  est_seconds: number | null;
  cost: number | null;
}

/** The `--json` document (exactly these keys), and what the human summary and the frozen plan add. */
export interface PlanReport {
  arms: ArmRequests[];
  totals: PlanTotals;
  contrasts: { arm: string; vs: string; mde: number | null; lines_needed: Record<string, number> | null }[];
  detail: {
    byDataset: Record<string, Record<string, number>>;
    tokenizer: string;
    throughput: Throughput | { lines_per_s: number; source: 'flag' } | null;
    power: ContrastPlan;
    exported: boolean;
    notes: string[];
    /** `phase5 probe`'s requests per job (src/stages/probe/plan.ts). */
    probe: ProbeJobPlan[];
  };
}

/** One token counter per endpoint (base URL and model) the arms use; the local backend gets the estimate. */
export async function counters(
  arms: ArmRun[],
  firstPrompt: (arm: ArmRun) => Promise<ReturnType<typeof correctionPrompt>['messages'] | null>,
) {
  const byKey = new Map<string, TokenCounter>();
  const notes: string[] = [];
  for (const arm of arms) {
    const inf = arm.config.infer;
    const key = inf.backend === 'openai' ? `${inf.openai.base_url} ${inf.openai.model}` : 'local';
    if (byKey.has(key)) continue;
    const probe = inf.backend === 'openai' ? await firstPrompt(arm) : null;
    if (!probe) {
      if (inf.backend !== 'openai') notes.push('prompt tokens estimated: the local backend serves no tokenizer route');
      byKey.set(key, estimateCounter);
      continue;
    }
    const apiKey = process.env[inf.openai.api_key_env];
    const found = await endpointCounter(
      { baseUrl: inf.openai.base_url, model: inf.openai.model, apiKey, timeoutMs: inf.openai.timeout_s * 1000 },
      probe,
    );
    if (found.why) notes.push(`prompt tokens estimated: ${found.why}`);
    byKey.set(key, found.counter);
  }
  const keyOf = (arm: ArmRun) =>
    arm.config.infer.backend === 'openai' ? `${arm.config.infer.openai.base_url} ${arm.config.infer.openai.model}` : 'local';
  return { counterOf: (arm: ArmRun) => byKey.get(keyOf(arm))!, notes };
}

/** Cost of an arm's requests at `infer.price` (per 1M tokens): prompt tokens plus the whole completion budget. */
function armCost(arm: ArmRun, r: ArmRequests): number | null {
  const price = (arm.config.infer as { price?: { input: number; output: number } }).price;
  return price ? (r.prompt_tokens * price.input + r.max_completion_tokens * price.output) / 1e6 : null;
}

/** Without the export of every selected arm, run it first, in this process; true when it ran. */
export async function exportFirst(config: Config, cli: RunOptions, log: (line: string) => void): Promise<boolean> {
  const study = studyPlan(config, cli);
  if (!inferOptionsFrom(config, cli, false, study).arms.some((a) => !existsSync(a.input))) return false;
  log('no export yet: running it first (CPU only: retrieval, no LLM call)');
  let shown = 0;
  const onProgress = (done: number, total: number) => {
    if (done === total || done - shown >= Math.max(1, Math.ceil(total / 10))) log(`export: ${(shown = done)}/${total} shards`);
  };
  await runExport(exportOptionsFrom(config, cli, false, study), { onProgress }, openExportRetriever);
  return true;
}

export async function computePlan(config: Config, cli: RunOptions, flags: PlanFlags = {}): Promise<PlanReport> {
  const log = flags.log ?? (() => undefined);
  const study = studyPlan(config, cli);
  const inferOptions = inferOptionsFrom(config, cli, false, study);
  const exported = await exportFirst(config, cli, log);
  const rowsOf = new Map<string, InferenceInputRow[]>();
  const firstPrompt = async (arm: ArmRun) => {
    const rows = await armRows(arm, inferOptions);
    return rows.length ? correctionPrompt(arm.prompt, rows[0], arm.template).messages : null;
  };
  const { counterOf, notes } = await counters(inferOptions.arms, firstPrompt);
  for (const arm of inferOptions.arms)
    notes.push(
      ...serverNotes(
        { name: arm.name, model: arm.model, replicates: replicatesOf(arm) },
        armRequestDecoding(arm.config),
        await armServer(arm.config),
      ),
    );
  const arms: ArmRequests[] = [];
  const byDataset: Record<string, Record<string, number>> = {};
  const prompts: ReturnType<typeof correctionPrompt>['messages'][] = [];
  for (const arm of inferOptions.arms) {
    const a = await armRequests(arm, inferOptions, counterOf(arm));
    arms.push(a.requests);
    byDataset[arm.name] = a.byDataset;
    rowsOf.set(arm.name, a.rows);
    const over = overContextNote(arm, a);
    if (over) notes.push(over);
    if (prompts.length < 64)
      prompts.push(...a.rows.slice(0, 64 - prompts.length).map((r) => correctionPrompt(arm.prompt, r, arm.template).messages));
  }
  const requests = arms.reduce((n, a) => n + a.requests, 0);
  const throughput = await duration(inferOptions.arms[0], prompts, flags, notes);
  const costs = inferOptions.arms.map((arm, i) => armCost(arm, arms[i]));
  const power = planContrasts({
    arms: study.declared.filter((a) => rowsOf.has(a.name)),
    baseline: config.study?.baseline ?? 'zero_shot',
    configured: config.study?.contrasts,
    rows: rowsOf,
    clusters: clusterSpecOf(config),
    scoring: {
      collapseWhitespace: config.analysis.collapse_whitespace,
      profile: resolveNormalization(config.analysis.normalization).primary,
    },
    alpha: ALPHA,
    iterations: config.analysis.bootstrap_iterations,
    seed: config.analysis.bootstrap_seed,
    targetMde: flags.targetMde,
  });
  return {
    arms,
    totals: {
      requests,
      prompt_tokens: arms.reduce((n, a) => n + a.prompt_tokens, 0),
      est_seconds: throughput ? requests / throughput.lines_per_s : null,
      cost: costs.some((c) => c === null) ? null : costs.reduce((x, c) => x! + c!, 0),
    },
    contrasts: power.contrasts.map(({ arm, vs, mde, lines_needed }) => ({ arm, vs, mde, lines_needed })),
    detail: {
      byDataset,
      tokenizer: counterOf(inferOptions.arms[0]).method,
      throughput,
      power,
      exported,
      notes,
      probe: await probePlan(probeOptionsFrom(config, cli)),
    },
  };
}

/** Lines per second: the flag, else a probe of the first arm's endpoint (openai backend only). */
async function duration(
  arm: ArmRun | undefined,
  prompts: ReturnType<typeof correctionPrompt>['messages'][],
  flags: PlanFlags,
  notes: string[],
): Promise<PlanReport['detail']['throughput']> {
  if (flags.linesPerS !== undefined) return { lines_per_s: flags.linesPerS, source: 'flag' };
  if (!arm || flags.probe === false) return null;
  const inf = arm.config.infer;
  if (inf.backend !== 'openai') {
    notes.push('no duration: the local backend is not probed — give --lines-per-s');
    return null;
  }
  try {
    flags.log?.(`probing ${inf.openai.base_url} (a few requests at rising concurrency; no correction is written)`);
    return await probeThroughput(
      {
        baseUrl: inf.openai.base_url,
        model: inf.openai.model,
        apiKeyEnv: inf.openai.api_key_env,
        temperature: inf.temperature,
        maxTokens: maxTokensOf(arm),
        timeoutMs: inf.openai.timeout_s * 1000,
      },
      prompts,
      Math.min(64, inf.openai.concurrency),
    );
  } catch (err) {
    notes.push(`no duration: the throughput probe failed (${(err as Error).message}) — give --lines-per-s`);
    return null;
  }
}
