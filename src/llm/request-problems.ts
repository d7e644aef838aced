/**
 * Decoding a server cannot honour, one line per key (docs/prompts.md#servers): a structured-output constraint the
 * server has no field for, and what OpenAI's models refuse — more than 4 stop strings; on a reasoning model any
 * stop string, a `temperature` other than 1 (0, the default, is simply not sent) or a `top_p` other than 1.
 * Checked when the config is read (a named server) and again before infer sends (a detected one).
 */
import type { ResolvedDecoding } from './decoding';
import { dialectOf } from './servers';
import { serverLabel, type ServerInfo } from './servers/kinds';
import { isOpenAiReasoningModel, requestRules } from './servers/openai-models';

/** The problems of sending `decoding` for `model` to `server`; `key` names the decoding block in messages. */
export function requestProblems(decoding: ResolvedDecoding, server: ServerInfo, model: string, key = 'decoding'): string[] {
  const problems: string[] = [];
  if (decoding.structured) {
    const fields = dialectOf(server).structured(decoding.structured, server.version);
    if (typeof fields === 'string') problems.push(`${key}.structured: ${fields}`);
  }
  const rules = requestRules(server.kind, model);
  const stops = decoding.stop?.length ?? 0;
  if (rules.max_stop === 0 && stops > 0)
    problems.push(
      `${key}.stop: ${model} takes no stop strings (OpenAI: "not supported with latest reasoning models") — remove decoding.stop`,
    );
  else if (rules.max_stop !== null && stops > rules.max_stop)
    problems.push(`${key}.stop: ${serverLabel(server)} takes at most ${rules.max_stop} stop strings, got ${stops}`);
  if (!rules.sends_sampling) {
    if (decoding.temperature !== 0 && decoding.temperature !== 1)
      problems.push(
        `${key}.temperature: ${model} samples at its own temperature (1) and refuses ${decoding.temperature} — remove it (0, the default, is not sent)`,
      );
    if (decoding.top_p !== null && decoding.top_p !== 1)
      problems.push(`${key}.top_p: ${model} refuses top_p ${decoding.top_p} (OpenAI reasoning models take their own sampling) — remove it`);
  }
  return problems;
}

/** Whether the body of `decoding` for `model` depends on which server it goes to (so `auto` must ask first). */
export function needsServerKind(decoding: ResolvedDecoding, model: string): boolean {
  const format = decoding.response_format;
  return Boolean(decoding.structured || decoding.reasoning || (format && format.type !== 'text') || isOpenAiReasoningModel(model));
}
