/** One backend call per input record, turned into the correction record to write (or nothing, when the run stops). */
import { buildPrompt, type BuiltPrompt } from '../prompts/builder';
import { renderTemplate, type PromptTemplate } from '../prompts/templates';
import { AnswerError, readAnswer } from './answer';
import { cleanOutput } from './clean';
import { applyGuard } from './guard';
import type { CorrectionRecord, InferenceInputRow } from './records';
import type { RunCorrectionsOptions, RunCorrectionsSummary } from './runner-types';
import { isOutage, LlmError, type CompletionResult, type FailureInfo } from './types';

function failureOf(err: unknown): FailureInfo {
  if (err instanceof LlmError) return err.toInfo();
  return { reason: 'unexpected', status: null, message: err instanceof Error ? `${err.name}: ${err.message}` : String(err), attempts: 1 };
}

/**
 * The prompt infer sends for one record: the arm's template when it has one, else the built-in of its kind
 * (`phase5 plan` counts the tokens of the same prompt).
 */
export function correctionPrompt(kind: RunCorrectionsOptions['prompt'], r: InferenceInputRow, template?: PromptTemplate): BuiltPrompt {
  return template ? renderTemplate(template, r.ocr_text, r.retrieval_context) : buildPrompt(kind, r.ocr_text, r.retrieval_context);
}

/**
 * What the server said about its answer, for the record: the keys a backend reports (the HTTP one: served model,
 * fingerprint, finish reason), and the reasoning trace when there is one. A backend that reports none adds none.
 */
function provenance(res: CompletionResult, reasoning: string | null): Partial<CorrectionRecord> {
  return {
    ...(res.servedModel !== undefined ? { served_model: res.servedModel } : {}),
    ...(res.systemFingerprint !== undefined ? { system_fingerprint: res.systemFingerprint } : {}),
    ...(res.finishReason !== undefined ? { finish_reason: res.finishReason } : {}),
    ...(reasoning !== null ? { reasoning } : {}),
  };
}

/** One backend call per record, counted into the summary; gives up (stops the run) after too many failures in a row. */
export class CorrectionCalls {
  gaveUp: string | null = null;
  private consecutiveFailures = 0;

  constructor(
    private readonly opts: RunCorrectionsOptions,
    private readonly summary: RunCorrectionsSummary,
    private readonly stop: AbortController,
    private readonly maxConsecutive: number,
  ) {}

  /** The record to write, or null when the call was cut short by the stop signal. */
  async correct(r: InferenceInputRow): Promise<CorrectionRecord | null> {
    const { backend, prompt: kind, template } = this.opts;
    const prompt = correctionPrompt(kind, r, template);
    const base = {
      sample_id: r.sample_id,
      dataset: r.dataset,
      prompt_type: prompt.promptType,
      prompt_version: prompt.promptVersion,
      model: backend.model,
      ocr_text: r.ocr_text,
      gt_text: r.gt_text,
    };
    const t0 = Date.now();
    let res: CompletionResult | null = null;
    try {
      res = await backend.complete(prompt.messages, { maxTokens: this.opts.maxTokens, signal: this.stop.signal });
      const answer = readAnswer(res, this.opts.jsonField);
      this.consecutiveFailures = 0;
      this.countSuccess(prompt.promptType, res.promptTokens, res.completionTokens);
      return {
        ...base,
        ...this.outputFields(answer.text, r.ocr_text, res.text),
        latency_ms: res.latencyMs,
        prompt_tokens: res.promptTokens,
        completion_tokens: res.completionTokens,
        ...provenance(res, answer.reasoning),
        error: null,
      };
    } catch (err) {
      const info = failureOf(err instanceof AnswerError ? err.failure : err);
      if (info.reason === 'aborted' && this.stop.signal.aborted) return null;
      if (isOutage(info.reason)) return this.stopForOutage(info);
      this.countFailure(prompt.promptType, info);
      return {
        ...base,
        corrected_text: '',
        raw_output: res?.text ?? '',
        latency_ms: res?.latencyMs ?? Date.now() - t0,
        prompt_tokens: res?.promptTokens ?? null,
        completion_tokens: res?.completionTokens ?? null,
        ...(res ? provenance(res, err instanceof AnswerError ? err.reasoning : null) : {}),
        error: info,
      };
    }
  }

  /** corrected_text and raw_output; with the guard on, the guarded text plus raw_text and the decision. */
  private outputFields(
    answer: string,
    ocr: string,
    raw: string,
  ): Pick<CorrectionRecord, 'corrected_text' | 'raw_output' | 'raw_text' | 'guard'> {
    const guard = this.opts.guard;
    if (!guard?.enabled) return { corrected_text: cleanOutput(answer, { source: ocr }), raw_output: raw };
    const g = applyGuard(answer, ocr, guard);
    const counts = (this.summary.guardDecisions ??= {});
    counts[g.guard] = (counts[g.guard] ?? 0) + 1;
    return { corrected_text: g.corrected_text, raw_output: raw, raw_text: raw, guard: g.guard };
  }

  /** The endpoint is not serving: stop the run and write nothing for this line (a later run redoes it). */
  private stopForOutage(info: FailureInfo): null {
    this.summary.outage ??= info;
    this.stop.abort();
    return null;
  }

  private countSuccess(promptType: string, promptTokens: number | null | undefined, completionTokens: number | null | undefined): void {
    const s = this.summary;
    s.succeeded++;
    s.promptTokens += promptTokens ?? 0;
    s.completionTokens += completionTokens ?? 0;
    s.promptTypes[promptType] = (s.promptTypes[promptType] ?? 0) + 1;
  }

  private countFailure(promptType: string, info: FailureInfo): void {
    const s = this.summary;
    s.failed++;
    s.failuresByReason[info.reason] = (s.failuresByReason[info.reason] ?? 0) + 1;
    s.promptTypes[promptType] = (s.promptTypes[promptType] ?? 0) + 1;
    this.consecutiveFailures++;
    if (this.maxConsecutive > 0 && this.consecutiveFailures >= this.maxConsecutive && !this.gaveUp) {
      this.gaveUp = `${this.consecutiveFailures} consecutive failures (last: ${info.reason}${info.status ? ` HTTP ${info.status}` : ''}: ${info.message})`;
      this.stop.abort();
    }
  }
}
