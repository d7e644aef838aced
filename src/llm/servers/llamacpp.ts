/**
 * llama.cpp's server (tools/server/server-common.cpp, `oaicompat_chat_params_parse`): a JSON schema as the
 * top-level `json_schema`, `response_format: {type: json_object, schema}` or `{type: json_schema, json_schema:
 * {schema}}`; a GBNF grammar as `grammar`; no regular expressions. The schema is sent as `{type: json_object,
 * schema}`, the one form llama-cpp-python's server takes too. A choice list becomes a grammar of its
 * alternatives. `reasoning_effort: "none"` turns thinking off; other levels reach the chat template as its
 * `reasoning_effort`. Its answers carry the trace as `reasoning_content`.
 */
import type { ResponseFormat } from '../decoding';
import { reasoningEffort, unsupported, type ServerDialect } from './dialect';

/** A GBNF string literal. */
function gbnfLiteral(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
}

/** The GBNF grammar whose only sentences are `choices`. */
export function choiceGrammar(choices: readonly string[]): string {
  return `root ::= ${choices.map(gbnfLiteral).join(' | ')}`;
}

function llamaFormat(format: ResponseFormat): ResponseFormat | Record<string, unknown> {
  return format.type === 'json_schema' ? { type: 'json_object', schema: format.json_schema.schema } : format;
}

export const llamacpp: ServerDialect = {
  structured(s) {
    if ('json' in s) return { response_format: { type: 'json_object', schema: s.json } };
    if ('choice' in s) return { grammar: choiceGrammar(s.choice) };
    return unsupported('llama.cpp', 'regex', 'use decoding.structured.choice or json, or a GBNF grammar in extra_body.grammar');
  },
  responseFormat: llamaFormat,
  reasoning: reasoningEffort,
};
