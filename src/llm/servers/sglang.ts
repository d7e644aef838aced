/**
 * SGLang's OpenAI server (python/sglang/srt/entrypoints/openai/protocol.py, `ChatCompletionRequest`): a JSON
 * schema in OpenAI's `response_format: {type: json_schema}` (its `{type: json_object}` is any object), a regular
 * expression in the top-level `regex` field (a choice list becomes the regex of its alternatives), EBNF in `ebnf`.
 * `reasoning_effort` (none…max) also sets the chat template's `thinking` / `enable_thinking` to
 * `effort != "none"`. Its answers carry the trace as `reasoning_content`.
 */
import { openAiFormat, reasoningEffort, type ServerDialect } from './dialect';
import { choiceRegex, jsonSchemaFormat } from './portable';

export const sglang: ServerDialect = {
  structured(s) {
    if ('json' in s) return { response_format: jsonSchemaFormat(s.json) };
    if ('regex' in s) return { regex: s.regex };
    return { regex: choiceRegex(s.choice) };
  },
  responseFormat: openAiFormat,
  reasoning: reasoningEffort,
};
