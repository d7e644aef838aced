/**
 * What the HTTP backend checks about its endpoint before the first correction (`preflight`, called by the infer
 * stage once per backend): the model is among those `GET …/models` lists (./served-models.ts; refused in one
 * line, worker-local), and the served model's context length where the server states it (vLLM's
 * `max_model_len`), against which every later prompt is checked before it is sent (./context-limit.ts).
 * An endpoint whose list cannot be read is not refused: the requests find out. The list is read once per backend
 * (again after a connection failure).
 */
import { contextProblem } from './context-limit';
import { listServedModels, modelNotServedError, servedEntry, type ServedModels } from './served-models';
import type { ChatMessage, LlmError } from './types';

export interface CheckedEndpoint {
  baseUrl: string;
  /** The endpoint as messages show it (credentials redacted). */
  where: string;
  model: string;
  apiKey: string | null;
}

export class EndpointChecks {
  private listing: Promise<ServedModels> | null = null;
  private maxModelLen: number | null = null;

  constructor(private readonly ep: CheckedEndpoint) {}

  /** Throws (WorkerSetupError) when the endpoint lists its models and the backend's is not among them. */
  async preflight(signal?: AbortSignal): Promise<void> {
    this.listing ??= listServedModels(this.ep.baseUrl, this.ep.apiKey, signal);
    const listed = await this.listing;
    if ('unlisted' in listed) {
      if (listed.connection) this.listing = null;
      return;
    }
    const entry = servedEntry(this.ep.model, listed.models);
    if (!entry) throw modelNotServedError(this.ep.model, this.ep.where, listed.models);
    this.maxModelLen = entry.maxModelLen;
  }

  /** The refusal of a prompt over the context length learnt by `preflight`, or null (fits, or no limit known). */
  async tooLong(messages: ChatMessage[], maxTokens: number): Promise<LlmError | null> {
    if (this.maxModelLen === null) return null;
    return contextProblem({ ...this.ep, maxModelLen: this.maxModelLen }, messages, maxTokens);
  }
}
