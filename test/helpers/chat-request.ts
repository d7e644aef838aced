/**
 * The request body vLLM's OpenAI-compatible server takes at `POST /v1/chat/completions` (its
 * `ChatCompletionRequest` of its vllm/entrypoints/openai/ protocol module, 0.12+): every field it declares,
 * with its type, as a strict zod object — so the simulated box (./sim-llm-server.ts) answers 400 to a field of the wrong type, as
 * vLLM does, and to a top-level key it does not declare. (vLLM itself logs and ignores unknown keys since it allows
 * extra fields; refusing them here makes a misspelt decoding key fail a test instead of vanishing.) Numbers are
 * not coerced from strings: stricter than pydantic's lax mode, on purpose. The `guided_*` fields vLLM removed in 0.12
 * (replaced by `structured_outputs`) are not declared: the box takes and ignores them as vLLM does (./sim-vllm-api.ts).
 */
import { z } from 'zod';

const num = z.number().nullish();
const int = z.number().int().nullish();
const bool = z.boolean().nullish();
const str = z.string().nullish();
const dict = z.record(z.string(), z.unknown()).nullish();

const Message = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']),
  content: z.union([z.string(), z.array(z.record(z.string(), z.unknown())), z.null()]).optional(),
  name: z.string().optional(),
});

const ResponseFormat = z.strictObject({
  type: z.enum(['text', 'json_object', 'json_schema', 'structural_tag']),
  json_schema: z
    .looseObject({
      name: z.string(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: bool,
    })
    .optional(),
});

export const ChatCompletionRequest = z.strictObject({
  messages: z.array(Message).min(1),
  model: str,
  frequency_penalty: num,
  logit_bias: z.record(z.string(), z.number()).nullish(),
  logprobs: bool,
  top_logprobs: int,
  max_tokens: int,
  max_completion_tokens: int,
  n: int,
  presence_penalty: num,
  response_format: ResponseFormat.nullish(),
  seed: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stream: bool,
  stream_options: dict,
  temperature: num,
  top_p: num,
  tools: z.array(z.record(z.string(), z.unknown())).nullish(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.record(z.string(), z.unknown())]).nullish(),
  reasoning_effort: z.enum(['low', 'medium', 'high']).nullish(),
  include_reasoning: z.boolean().optional(),
  parallel_tool_calls: bool,
  user: str,
  best_of: int,
  use_beam_search: z.boolean().optional(),
  top_k: int,
  min_p: num,
  repetition_penalty: num,
  length_penalty: z.number().optional(),
  stop_token_ids: z.array(z.number().int()).nullish(),
  include_stop_str_in_output: z.boolean().optional(),
  ignore_eos: z.boolean().optional(),
  min_tokens: z.number().int().optional(),
  skip_special_tokens: z.boolean().optional(),
  spaces_between_special_tokens: z.boolean().optional(),
  truncate_prompt_tokens: z.number().int().min(1).nullish(),
  prompt_logprobs: int,
  allowed_token_ids: z.array(z.number().int()).nullish(),
  bad_words: z.array(z.string()).optional(),
  echo: z.boolean().optional(),
  add_generation_prompt: z.boolean().optional(),
  continue_final_message: z.boolean().optional(),
  add_special_tokens: z.boolean().optional(),
  documents: z.array(z.record(z.string(), z.string())).nullish(),
  chat_template: str,
  chat_template_kwargs: dict,
  mm_processor_kwargs: dict,
  structured_outputs: dict,
  priority: z.number().int().optional(),
  request_id: z.string().optional(),
  logits_processors: z.array(z.unknown()).nullish(),
  return_tokens_as_token_ids: bool,
  cache_salt: z.string().min(1).nullish(),
  kv_transfer_params: dict,
  vllm_xargs: z.record(z.string(), z.union([z.string(), z.number()])).nullish(),
});
export type ChatRequest = z.infer<typeof ChatCompletionRequest>;

/** null for a body vLLM would take; else the 400 message, one line naming each bad field. */
export function chatRequestProblem(body: unknown): string | null {
  const r = ChatCompletionRequest.safeParse(body);
  if (r.success) return null;
  return r.error.issues
    .map((i) =>
      i.code === 'unrecognized_keys'
        ? `extra inputs are not permitted: ${i.keys.join(', ')}`
        : `${i.path.join('.') || '(body)'}: ${i.message}`,
    )
    .join('; ');
}
