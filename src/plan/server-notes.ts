/**
 * What `phase5 plan` tells about an arm's requests on its server (docs/prompts.md#reproducibility): a reasoning
 * arm without `max_tokens` headroom, replicates at temperature 0, and what the server needs for reproducible
 * answers — each from that server's source:
 *   - vLLM: batch-invariant kernels only with `VLLM_BATCH_INVARIANT=1` (vllm/envs.py); unset sampling keys fall
 *     back to the model's generation_config (`--generation-config auto`);
 *   - SGLang: unset sampling keys fall back to the model's generation_config
 *     (python/sglang/srt/entrypoints/openai/protocol.py `to_sampling_params`);
 *   - llama.cpp: `cache_prompt` is on by default (tools/server/server-task.cpp), so an answer depends on what
 *     the slot held before; unset `top_k` is 40 and `min_p` 0.05 (common/common.h);
 *   - Ollama: an unset `top_p` is sent as 1 and `top_k` is its default 40 (openai/openai.go, api/types.go).
 */
import type { ResolvedDecoding } from '../llm/decoding';
import { isOpenAiReasoningModel } from '../llm/servers/openai-models';
import type { ArmServer } from '../stages/infer/arm-server';

/** Completion tokens below which a reasoning arm is told it may be cut before it answers. */
export const REASONING_HEADROOM = 2048;

/** Model names of families that think before they answer (unless told not to). */
const REASONING_NAMES = /(?:^|[/_-])(?:qwq|deepseek-r1|r1-distill|gpt-oss|magistral|phi-4-reasoning)|thinking|qwen3(?![^/]*instruct)/i;

export function reasons(model: string, decoding: ResolvedDecoding): boolean {
  if (decoding.reasoning) return decoding.reasoning !== 'none';
  return isOpenAiReasoningModel(model) || REASONING_NAMES.test(model);
}

const REPRODUCIBLE: Record<string, (d: ResolvedDecoding) => string | null> = {
  vllm: (d) =>
    `answers repeat only when the server runs with VLLM_BATCH_INVARIANT=1${d.top_p === null ? '; top_p/top_k not set: the model’s generation_config decides — set decoding.top_p and extra_body.top_k' : ''}`,
  sglang: (d) =>
    d.top_p === null ? 'top_p/top_k not set: the model’s generation_config decides — set decoding.top_p and extra_body.top_k' : null,
  llamacpp: (d) => {
    const parts = [
      d.extra_body.cache_prompt === false
        ? null
        : 'cache_prompt is on (the server default): an answer depends on the slot’s history — set extra_body.cache_prompt: false',
      d.extra_body.top_k === undefined ? 'unset top_k is 40 and min_p 0.05 (the server’s defaults) — set extra_body.top_k / min_p' : null,
    ].filter((p): p is string => p !== null);
    return parts.length ? parts.join('; ') : null;
  },
  ollama: (d) =>
    d.top_p === null ? 'unset top_p is sent as 1 and top_k is 40 (Ollama’s defaults) — set decoding.top_p and extra_body.top_k' : null,
};

/** The plan's notes for one arm. */
export function serverNotes(
  arm: { name: string; model: string; replicates: number },
  decoding: ResolvedDecoding,
  server: ArmServer | null,
): string[] {
  const notes: string[] = [];
  if (reasons(arm.model, decoding) && decoding.max_tokens < REASONING_HEADROOM)
    notes.push(
      `arm ${arm.name}: ${arm.model} reasons before it answers and max_tokens is ${decoding.max_tokens} — a trace can use all of it (a cut answer is a failed line): raise decoding.max_tokens to ${REASONING_HEADROOM} or more, or set decoding.reasoning: none`,
    );
  if (arm.replicates > 1 && decoding.temperature === 0)
    notes.push(
      `arm ${arm.name}: ${arm.replicates} replicates at temperature 0 repeat the greedy answer — their spread is the server's nondeterminism only; set decoding.temperature to sample`,
    );
  if (server?.error) notes.push(`arm ${arm.name}: could not ask the server which it is (${server.error})`);
  const reproducible = server ? REPRODUCIBLE[server.kind]?.(decoding) : null;
  if (server && reproducible) notes.push(`arm ${arm.name} (${server.kind}${server.version ? ` ${server.version}` : ''}): ${reproducible}`);
  return notes;
}
