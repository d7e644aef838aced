/**
 * Config rules about prompts and decoding that span keys (docs/prompts.md): a template's placeholders, whether
 * an arm's template and its retrieval agree, and decoding keys the local backend cannot honour. One line per
 * problem, naming the key.
 */
import { armDecoding } from '../llm/decoding';
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

/** A JSON `response_format` or `extra_body` on the local backend, which only the HTTP backend sends. */
export function decodingProblems(config: Config): string[] {
  const problems: string[] = [];
  const check = (key: string, backend: unknown, decoding: Config['infer']['decoding']) => {
    if (backend !== 'local' || !decoding) return;
    if (decoding.response_format && decoding.response_format.type !== 'text')
      problems.push(`${key}.response_format: the local backend cannot constrain its answer to JSON — use infer.backend: openai`);
    if (decoding.extra_body && Object.keys(decoding.extra_body).length)
      problems.push(`${key}.extra_body: the local backend sends no request body — use infer.backend: openai`);
  };
  if (!config.study) check('infer.decoding', config.infer.backend, config.infer.decoding);
  config.study?.arms.forEach((arm, i) => {
    const backend = (arm.infer as { backend?: unknown } | undefined)?.backend ?? config.infer.backend;
    check(arm.decoding ? `study.arms.${i}.decoding` : 'infer.decoding', backend, armDecoding(config.infer.decoding, arm.decoding));
  });
  return [...new Set(problems)];
}
