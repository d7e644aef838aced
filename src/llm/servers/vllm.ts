/**
 * vLLM's OpenAI server (vllm/entrypoints/openai/chat_completion/protocol.py, `ChatCompletionRequest`): the
 * constraint goes in `structured_outputs: {json | regex | choice | grammar}` (vllm/sampling_params.py
 * `StructuredOutputsParams`), added in 0.10.2; the `guided_*` fields it replaced were removed in 0.12.0 and are
 * dropped with HTTP 200 and a warning in the server's log (vllm/entrypoints/serve/engine/protocol.py). An older
 * vLLM that reports its version gets the `guided_*` fields it reads. `response_format` takes OpenAI's
 * `json_schema` form. `reasoning_effort` takes none…high; `none` also sets the chat template's `enable_thinking`
 * (Qwen3-style templates read that key).
 */
import { openAiFormat, reasoningEffort, type ServerDialect } from './dialect';

/** True for a vLLM version before 0.10.2, which reads `guided_json` / `guided_regex` / `guided_choice`. */
export function vllmBeforeStructuredOutputs(version: string | null): boolean {
  const m = version ? /^(\d+)\.(\d+)\.(\d+)/.exec(version) : null;
  if (!m) return false;
  const [major, minor, patch] = m.slice(1).map(Number);
  return major === 0 && (minor < 10 || (minor === 10 && patch < 2));
}

export const vllm: ServerDialect = {
  structured(s, version) {
    if (vllmBeforeStructuredOutputs(version)) {
      if ('json' in s) return { guided_json: s.json };
      if ('regex' in s) return { guided_regex: s.regex };
      return { guided_choice: s.choice };
    }
    return { structured_outputs: s };
  },
  responseFormat: openAiFormat,
  reasoning: (level) => ({ ...reasoningEffort(level), ...(level === 'none' ? { chat_template_kwargs: { enable_thinking: false } } : {}) }),
};
