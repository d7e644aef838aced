/**
 * The batch workflow's result for a person (docs/batch.md): the files written (lines, bytes, expected nothing
 * more), each remote batch's status and counts, the import's one line, and the tokens with the cost at the batch
 * price (`infer.price` less `batch_discount`; without a discount, the list price).
 */
import type { BatchWorkflowResult } from '../../src/stages/batch/types';

const n = (x: number) => x.toLocaleString('en-US');

/** A result of the batch workflow (directly, or as the infer stage's `{batch}`). */
export function asBatchResult(r: unknown): BatchWorkflowResult | null {
  if (!r || typeof r !== 'object') return null;
  const o = r as Record<string, unknown>;
  if ('batch' in o && o.batch && typeof o.batch === 'object') return o.batch as BatchWorkflowResult;
  // An arm may be named "out" or "in": a batch result is told by its parts' own keys.
  const part = (k: string, key: string) => Boolean(o[k] && typeof o[k] === 'object' && key in (o[k] as object));
  return part('out', 'manifest') || part('in', 'summary') ? (o as BatchWorkflowResult) : null;
}

/** Tokens × price per 1M, less the batch discount. */
export function batchCost(promptTokens: number, completionTokens: number, price: NonNullable<BatchWorkflowResult['price']>): number {
  return ((promptTokens * price.input + completionTokens * price.output) / 1e6) * (1 - (price.batch_discount ?? 0));
}

export function batchLines(r: BatchWorkflowResult): string[] {
  const lines: string[] = [];
  if (r.out) {
    const bytes = r.out.files.reduce((s, f) => s + f.bytes, 0);
    const count = r.out.files.reduce((s, f) => s + f.lines, 0);
    lines.push(
      `batch-out: ${n(count)} request(s) in ${n(r.out.files.length)} file(s), ${n(bytes)} bytes (${n(r.out.alreadyDone)} line(s) already done) → ${r.out.manifest}`,
    );
  }
  for (const b of r.remote ?? [])
    lines.push(
      `batch ${b.batchId} (${b.file}): ${b.status}, ${n(b.counts.completed)} completed, ${n(b.counts.failed)} failed of ${n(b.counts.total)}`,
    );
  if (r.in) {
    lines.push(r.in.summary);
    for (const [run, i] of Object.entries(r.in.runs)) {
      const cost = r.price ? ` · cost at the batch price ${batchCost(i.promptTokens, i.completionTokens, r.price).toPrecision(3)}` : '';
      lines.push(
        `  ${run}: ${n(i.written)} written (${n(i.failed)} failed), ${n(i.alreadyDone)} already done · ${n(i.promptTokens)} + ${n(i.completionTokens)} tokens${cost} → ${i.output}`,
      );
    }
  }
  return lines;
}
