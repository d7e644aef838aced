/**
 * The activity a stage is retrying: Temporal keeps a pending activity's attempt number and its last failure
 * (DescribeWorkflowExecution's pendingActivities) while it backs off and while the next attempt runs, so the
 * CLI can say why a stage does not move instead of showing a count that never changes.
 */
export interface RetryingActivity {
  /** The attempt running or scheduled next (2 or more). */
  attempt: number;
  /** The last failure's message, on one line. */
  failure: string;
}

/** The longest failure text a progress line carries. */
const MAX_FAILURE_CHARS = 300;

export function oneLine(message: string, max = MAX_FAILURE_CHARS): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Of pending activities, the one that failed most often (attempt ≥ 2 with a last failure); null when none is retrying. */
export function retryingActivity(activities: readonly { attempt: number; lastFailure?: string }[]): RetryingActivity | null {
  let worst: RetryingActivity | null = null;
  for (const a of activities) {
    if (a.attempt < 2 || !a.lastFailure) continue;
    if (!worst || a.attempt > worst.attempt) worst = { attempt: a.attempt, failure: oneLine(a.lastFailure) };
  }
  return worst;
}

/** Of several retrying activities (any null), the one with the most attempts; null when none retries. */
export function worstRetrying(list: readonly (RetryingActivity | null | undefined)[]): RetryingActivity | null {
  return list.reduce<RetryingActivity | null>((worst, r) => (r && (!worst || r.attempt > worst.attempt) ? r : worst), null);
}
