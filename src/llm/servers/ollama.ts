/**
 * Ollama's OpenAI-compatible API (openai/openai.go, `FromChatRequest`): `response_format: {type: json_schema,
 * json_schema: {schema}}` becomes its native `format` (the schema); `{type: json_object}` becomes `"json"`, any
 * JSON, its schema dropped. It has no regex or choice constraint. `reasoning_effort` maps to its `think`
 * (`none` → false; low, medium, high as they are); `chat_template_kwargs` is not read. Its answers carry the
 * trace as `reasoning`.
 */
import { openAiFormat, reasoningEffort, unsupported, type ServerDialect } from './dialect';
import { jsonSchemaFormat } from './portable';

export const ollama: ServerDialect = {
  structured(s) {
    if ('json' in s) return { response_format: jsonSchemaFormat(s.json) };
    return unsupported('Ollama', 'regex' in s ? 'regex' : 'choice', 'use decoding.structured.json (a schema with an "enum" for a choice)');
  },
  responseFormat: openAiFormat,
  reasoning: reasoningEffort,
};
