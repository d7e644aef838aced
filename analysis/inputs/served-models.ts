/**
 * Which model served an arm's lines (each record's `served_model`, the response's `model`; docs/outputs.md):
 * two GPU boxes serving different weights under one configured name would otherwise be pooled silently.
 */
import type { CorrectionRecord } from '../../src/llm/records';

/** A warning when the arm's lines were answered by more than one served model (records without the key are not counted). */
export function servedModelsWarning(arm: string, records: Iterable<Pick<CorrectionRecord, 'served_model'>>): string | null {
  const counts = new Map<string, number>();
  for (const r of records) if (typeof r.served_model === 'string') counts.set(r.served_model, (counts.get(r.served_model) ?? 0) + 1);
  if (counts.size <= 1) return null;
  const list = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([m, n]) => `${m} (${n.toLocaleString('en-US')} line(s))`)
    .join(', ');
  return `arm ${arm}: lines were answered by ${counts.size} served models — ${list}; its figures pool them`;
}
