/**
 * Config rules about prompts and decoding that span keys (docs/prompts.md): a template's placeholders, whether
 * an arm's template and its retrieval agree, and decoding keys the local backend cannot honour. One line per
 * problem, naming the key.
 */
import { armDecoding, resolveDecoding } from '../llm/decoding';
import { requestProblems } from '../llm/request-problems';
import { configuredServer } from '../llm/servers/kinds';
import { resolveTemplate } from '../prompts/templates';
import { unknownPlaceholders } from '../prompts/template-schema';
import type { Config } from './schema';

/** Declared templates' placeholders, and each arm's template against its retrieval mode. */
export function templateProblems(config: Config): string[] {
  const problems: string[] = [];
  const prompts = config.study?.prompts ?? {};
  for (const [name, t] of Object.entries(prompts)) {
    for (const part of ['system', 'user'] as const) {
      const key = t[`${part}_file`] !== undefined ? `${part}_file` : part;
      for (const bad of unknownPlaceholders(t[part] ?? ''))
        problems.push(`study.prompts.${name}.${key}: unknown placeholder {${bad}} — a template may use {retrieval_context} and {ocr_text}`);
    }
    const texts = [t.system ?? '', t.user ?? '{ocr_text}'];
    if (!texts.some((x) => x.includes('{ocr_text}')))
      problems.push(`study.prompts.${name}.user: neither system nor user holds {ocr_text}, so the line would never be sent`);
  }
  config.study?.arms.forEach((arm, i) => {
    if (arm.prompt === undefined || arm.prompt === 'rag' || arm.prompt === 'zero_shot') return; // their own rules (./study.ts)
    const t = resolveTemplate(arm.prompt, prompts);
    const mode = arm.retrieval?.mode;
    if (!t || mode === undefined) return;
    if (mode !== 'none' && !t.retrieves)
      problems.push(
        `study.arms.${i}.prompt: template "${t.name}" has no {retrieval_context}, but the arm retrieves (retrieval.mode "${mode}") — add the placeholder or set retrieval.mode: none (arm "${arm.name}")`,
      );
    if (mode === 'none' && t.retrieves)
      problems.push(
        `study.arms.${i}.retrieval.mode: template "${t.name}" shows {retrieval_context}, but mode "none" retrieves nothing (arm "${arm.name}")`,
      );
  });
  return problems;
}

/**
 * A JSON `response_format`, `structured`, `reasoning` or `extra_body` on the local backend, which only the HTTP
 * backend sends; on the HTTP backend with a known server (`infer.openai.server`, or OpenAI's base URL), a
 * decoding that server cannot honour (src/llm/request-problems.ts).
 */
export function decodingProblems(config: Config): string[] {
  const problems: string[] = [];
  const check = (key: string, backend: unknown, decoding: Config['infer']['decoding'], over?: ArmInfer) => {
    if (backend === 'openai') return void problems.push(...serverProblems(key, config, decoding, over));
    if (backend !== 'local' || !decoding) return;
    if (decoding.structured) problems.push(`${key}.structured: the local backend cannot constrain its answer — use infer.backend: openai`);
    if (decoding.reasoning) problems.push(`${key}.reasoning: the local backend sends no reasoning level — use infer.backend: openai`);
    if (decoding.response_format && decoding.response_format.type !== 'text')
      problems.push(`${key}.response_format: the local backend cannot constrain its answer to JSON — use infer.backend: openai`);
    if (decoding.extra_body && Object.keys(decoding.extra_body).length)
      problems.push(`${key}.extra_body: the local backend sends no request body — use infer.backend: openai`);
  };
  if (!config.study) check('infer.decoding', config.infer.backend, config.infer.decoding);
  config.study?.arms.forEach((arm, i) => {
    const backend = (arm.infer as { backend?: unknown } | undefined)?.backend ?? config.infer.backend;
    check(
      arm.decoding ? `study.arms.${i}.decoding` : 'infer.decoding',
      backend,
      armDecoding(config.infer.decoding, arm.decoding),
      arm.infer as ArmInfer | undefined,
    );
  });
  return [...new Set(problems)];
}

type ArmInfer = { temperature?: number; openai?: Partial<Config['infer']['openai']> };

/** The HTTP backend's decoding against its server, where the config names it (or the base URL is OpenAI's). */
function serverProblems(key: string, config: Config, decoding: Config['infer']['decoding'], over: ArmInfer | undefined): string[] {
  const openai = { ...config.infer.openai, ...over?.openai };
  const setting = openai.server ?? 'auto';
  const server =
    setting !== 'auto'
      ? configuredServer(setting)
      : /^https:\/\/api\.openai\.com(\/|$)/.test(openai.base_url)
        ? configuredServer('openai')
        : null;
  if (!server) return [];
  const resolved = resolveDecoding(decoding, { temperature: over?.temperature ?? config.infer.temperature, maxTokens: openai.max_tokens });
  return requestProblems(resolved, server, openai.model, key);
}
