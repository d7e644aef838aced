/**
 * OpenAI's hosted API (the chat-completions reference, as openai-node's
 * src/resources/chat/completions/completions.ts carries it): structured output is `response_format: {type:
 * json_schema, json_schema: {name, schema}}` only; `reasoning_effort` takes none, minimal, low, medium, high
 * (not every model every value). Which sampling keys a model refuses is ./openai-models.ts.
 */
import { openAiFormat, reasoningEffort, unsupported, type ServerDialect } from './dialect';
import { jsonSchemaFormat } from './portable';

export const openai: ServerDialect = {
  structured(s) {
    if ('json' in s) return { response_format: jsonSchemaFormat(s.json) };
    return unsupported('OpenAI', 'regex' in s ? 'regex' : 'choice', 'use decoding.structured.json (a schema with an "enum" for a choice)');
  },
  responseFormat: openAiFormat,
  reasoning: reasoningEffort,
};

/**
 * A server `auto` did not identify: the portable OpenAI fields, the response_format as configured (a proxy may
 * forward it to a llama.cpp that reads `{type: json_object, schema}`), no regex or choice.
 */
export const unknownServer: ServerDialect = {
  structured(s) {
    if ('json' in s) return { response_format: jsonSchemaFormat(s.json) };
    return unsupported(
      'an unidentified server',
      'regex' in s ? 'regex' : 'choice',
      'set infer.openai.server to the server it is (vllm, sglang, llamacpp) or use decoding.structured.json',
    );
  },
  responseFormat: (format) => format,
  reasoning: reasoningEffort,
};
