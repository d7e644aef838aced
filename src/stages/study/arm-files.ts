/**
 * The files a study's export leaves beside its records: per shared export `retrieval_stats.json` (mode, k, the
 * arms reading it, the verbatim-gold retrieval rate), and per arm `<results>/arms/<arm>/arm.json` plus
 * `inference_input.jsonl` — a relative symlink to the shared export (a copy where links cannot be made).
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { readJsonl, readJsonlAll, writeJsonAtomic } from '../../io/jsonl';
import { redactedUrl } from '../../llm/openai-backend';
import { buildPrompt } from '../../prompts/builder';
import { prefixShare, promptText } from '../../prompts/prefix-share';
import { renderTemplate } from '../../prompts/templates';
import { VERBATIM_THRESHOLD, verbatimGoldRate, type VerbatimRate } from '../../retrieval/verbatim';
import type { ArmRun, ExportGroup } from './arms';
import type { ArmServer } from '../infer/arm-server';
import { armRequestDecoding } from '../infer/backend';

/** Lines of an arm's export its prompt prefix share is measured on (the first ones, in export order). */
export const PREFIX_SAMPLE_LINES = 500;

/** What one shared export holds, and how often its context contains the line's own gold text. */
export interface SharedExport {
  fingerprint: string;
  mode: ExportGroup['mode'];
  top_k: number;
  upper_bound: boolean;
  arms: string[];
  path: string;
  records: number;
  /** sha256 of the file at `path` as the merge wrote it (not in retrieval_stats.json: the attach check reads it). */
  sha256: string;
  verbatim_gold: VerbatimRate & { threshold: number; by_dataset: Record<string, VerbatimRate> };
}

/** `<dir>/retrieval_stats.json` for a merged shared export. */
export async function writeSharedExportStats(
  group: ExportGroup,
  merged: { path: string; records: number; sha256: string },
): Promise<SharedExport> {
  const records = await readJsonlAll<{ dataset: string; gt_text: string; retrieval_context: string }>(merged.path);
  const stats: SharedExport = {
    fingerprint: group.fingerprint,
    mode: group.mode,
    top_k: group.config.retrieval.top_k,
    upper_bound: group.mode === 'gold_query',
    arms: group.arms,
    path: merged.path,
    records: merged.records,
    sha256: merged.sha256,
    verbatim_gold: { threshold: VERBATIM_THRESHOLD, ...verbatimGoldRate(records) },
  };
  const { sha256: _digest, ...file } = stats;
  writeJsonAtomic(path.join(group.dir, 'retrieval_stats.json'), { ...file, path: path.basename(merged.path) });
  return stats;
}

/**
 * arm.json as the contract has it (plus the verbatim-gold rate of the context it sees; null for a zero-shot arm),
 * then the request as it is sent (docs/outputs.md#armjson): the prompt template (name, version, sha256 of its
 * text), the resolved decoding, the backend's settings (no secret: the API key's variable name only) and the
 * share of its prompts a prefix cache could reuse.
 */
export function armJson(
  arm: ArmRun,
  shared: SharedExport | undefined,
  prefix: PromptPrefix | null = null,
  server: ArmServer | null = null,
): Record<string, unknown> {
  return {
    ...contractFields(arm, shared),
    prompt_template: arm.template ? { name: arm.template.name, version: arm.template.version, sha256: arm.template.sha256 } : null,
    decoding: armRequestDecoding(arm.config),
    backend: backendSettings(arm.config),
    ...(server ? { server } : {}),
    prompt_prefix: prefix,
  };
}

/** The share of an arm's prompts a prefix cache could reuse, over its first lines (src/prompts/prefix-share.ts). */
export interface PromptPrefix {
  share: number | null;
  lines: number;
}

function backendSettings(config: ArmRun['config']): Record<string, unknown> {
  const inf = config.infer;
  if (inf.backend !== 'local') return { type: inf.backend, ...inf.openai, base_url: redactedUrl(inf.openai.base_url) };
  return { type: 'local', ...inf.local };
}

/** The arm's prompts for the first lines of its export, and how much of them is a shared prefix. */
export async function armPromptPrefix(arm: ArmRun, exportPath: string): Promise<PromptPrefix> {
  const prompts: string[] = [];
  for await (const { value } of readJsonl<{ ocr_text: string; retrieval_context?: string | null }>(exportPath)) {
    const ctx = arm.prompt === 'rag' ? value.retrieval_context : null;
    const p = arm.template ? renderTemplate(arm.template, value.ocr_text, ctx) : buildPrompt(arm.prompt, value.ocr_text, ctx);
    prompts.push(promptText(p.messages));
    if (prompts.length >= PREFIX_SAMPLE_LINES) break;
  }
  return { share: prefixShare(prompts), lines: prompts.length };
}

function contractFields(arm: ArmRun, shared: SharedExport | undefined): Record<string, unknown> {
  return {
    name: arm.name,
    prompt: arm.prompt,
    retrieval: {
      mode: arm.retrieval.mode,
      top_k: arm.retrieval.top_k,
      fingerprint: arm.retrieval.fingerprint,
      k_group: arm.retrieval.k_group ?? null,
    },
    upper_bound: arm.upperBound,
    model: arm.model,
    ...(arm.corrector ? { corrector: arm.corrector.kind, corrector_settings: arm.corrector[arm.corrector.kind] } : {}),
    guard: arm.guard ?? null,
    verbatim_gold_rate: arm.prompt === 'zero_shot' ? null : (shared?.verbatim_gold.rate ?? null),
    ...replicatesJson(arm),
  };
}

/** arm.json's `replicates` and `seeds`, only for an arm with replicates (the other arms' arm.json keep their keys). */
function replicatesJson(arm: ArmRun): Record<string, unknown> {
  const n = arm.replicates ?? 1;
  return n > 1 ? { replicates: n, seeds: Array.from({ length: n }, (_, r) => (arm.baseSeed ?? 0) + r) } : {};
}

/** Every arm's dir: arm.json and its inference_input.jsonl pointing at the export of its fingerprint. */
export async function writeArmDirs(arms: readonly ArmRun[], exports: readonly SharedExport[]): Promise<void> {
  for (const arm of arms) {
    const shared = exports.find((e) => e.fingerprint === arm.retrieval.fingerprint);
    mkdirSync(path.dirname(arm.input), { recursive: true });
    const prefix = shared ? await armPromptPrefix(arm, shared.path) : null;
    writeJsonAtomic(path.join(path.dirname(arm.input), 'arm.json'), armJson(arm, shared, prefix));
    if (shared) linkOrCopy(shared.path, arm.input);
  }
}

/** A relative symlink `link` → `target`; a copy on platforms (or filesystems) without symlinks. */
export function linkOrCopy(target: string, link: string): void {
  if (lstatSync(link, { throwIfNoEntry: false })) rmSync(link, { force: true });
  try {
    symlinkSync(path.relative(path.dirname(link), target), link);
  } catch {
    copyFileSync(target, link);
  }
}

/**
 * Before an arm's lines are corrected: its arm.json's request fields (template, decoding, backend, and an HTTP
 * arm's server: kind, version, request rules) as this infer sends them — the export wrote them, but decoding may
 * change without a new export. An arm without arm.json (its input made elsewhere) gets a whole one, its prefix
 * share measured on its input.
 */
export async function writeArmRequest(arm: ArmRun, server: ArmServer | null = null): Promise<void> {
  if (!arm.dir) return;
  const file = path.join(arm.dir, 'arm.json');
  const had = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : null;
  const prefix = had
    ? ((had.prompt_prefix as PromptPrefix | undefined) ?? null)
    : existsSync(arm.input)
      ? await armPromptPrefix(arm, arm.input)
      : null;
  const now = armJson(arm, undefined, prefix, server);
  const { prompt_template, decoding, backend } = now;
  const serverKey = server ? { server } : {};
  writeJsonAtomic(file, had ? { ...had, prompt_template, decoding, backend, ...serverKey, prompt_prefix: prefix } : now);
}
