/**
 * What a batch runner does with an input file (OpenAI's Batch API, vLLM's run_batch): each request line answered
 * as an output line `{id, custom_id, response: {status_code, request_id, body}, error}`. The answer comes from a
 * function (a fixed one, or an OpenAI-compatible server such as the simulated box: `forwardTo`).
 */
export interface AnsweredRequest {
  status: number;
  body: unknown;
}

export type Answerer = (body: Record<string, unknown>) => Promise<AnsweredRequest>;

/** Answers from an OpenAI-compatible server's `/chat/completions` (e.g. test/helpers/sim-llm-server.ts). */
export function forwardTo(baseUrl: string): Answerer {
  return async (body) => {
    const res = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
}

let seq = 0;

/** One output line for an input line; `error` set makes it a failed line (as the error file holds them). */
export function outputLine(customId: string, answered: AnsweredRequest | null, error?: { code: string; message: string }): string {
  const n = ++seq;
  const response = answered ? { status_code: answered.status, request_id: `req_${n}`, body: answered.body } : null;
  return JSON.stringify({ id: `batch_req_${n}`, custom_id: customId, response, error: error ?? null }) + '\n';
}

/** Every line of a batch input file answered, in input order. */
export async function answerAll(input: string, answer: Answerer): Promise<string> {
  let out = '';
  for (const text of input.split('\n')) {
    if (!text.trim()) continue;
    const line = JSON.parse(text) as { custom_id: string; body: Record<string, unknown> };
    out += outputLine(line.custom_id, await answer(line.body));
  }
  return out;
}
