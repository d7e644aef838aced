/**
 * Token- or character-budgeted merge (docs/retrieval.md#retriever-options): keep items in their order while the
 * running total fits the budget, stop at the first that does not. Order is never changed, so the best
 * hit is always the one kept.
 */

export type BudgetUnit = 'chars' | 'tokens';

export interface Budget {
  /** Total allowed (null or Infinity = no limit). */
  limit: number | null;
  /** How an item is measured (default: code points). */
  measure?: (text: string) => number;
  /** Cost added between consecutive items (a newline, a number prefix…; default 0). */
  separatorCost?: number;
}

export interface BudgetResult<T> {
  kept: T[];
  /** Items dropped because the budget ran out. */
  dropped: number;
  used: number;
}

export function codePointCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function mergeWithinBudget<T>(items: readonly T[], text: (item: T) => string, budget: Budget): BudgetResult<T> {
  const limit = budget.limit ?? Infinity;
  if (!(limit >= 0)) throw new RangeError(`budget must be ≥ 0, got ${budget.limit}`);
  const measure = budget.measure ?? codePointCount;
  const sep = budget.separatorCost ?? 0;
  const kept: T[] = [];
  let used = 0;
  for (const it of items) {
    const cost = measure(text(it)) + (kept.length > 0 ? sep : 0);
    if (used + cost > limit) break;
    kept.push(it);
    used += cost;
  }
  return { kept, dropped: items.length - kept.length, used };
}
