/**
 * The frozen plan against the results (docs/plan.md#frozen-plan): which contrasts are confirmatory (those the
 * lock names; the rest are exploratory, outside the Holm family), which arms and profiles the lock lacks,
 * whether infer ran under this lock (the sha256 it recorded beside each arm), whether the lock was written after
 * the first correction, and the planned requests, prompt tokens and detectable effects beside the actual ones.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { armPlanLock, type PlanLock, type ReadLock } from '../../src/plan/plan-lock';
import { replicateFolders } from '../study/replicates';

export interface PlanCheck {
  sha256: string;
  written_at: string;
  /** The lock was written when some arm already had corrections. */
  after_first_correction: boolean;
  /** Per arm: the lock sha256 infer recorded (null: corrected without a lock). */
  infer_recorded: Record<string, string | null>;
  /** Arms whose corrections were made under no lock or another one. */
  not_under_lock: string[];
  exploratory: { arms: string[]; contrasts: { arm: string; vs: string }[]; profiles: string[] };
  /** Planned vs actual, per arm and in total. */
  arms: {
    arm: string;
    planned_requests: number | null;
    actual_requests: number;
    planned_prompt_tokens: number | null;
    actual_prompt_tokens: number;
  }[];
  totals: {
    planned_requests: number | null;
    actual_requests: number;
    planned_prompt_tokens: number | null;
    actual_prompt_tokens: number;
    planned_seconds: number | null;
    /**
     * Wall-clock seconds from the first arm's start under the lock (plan_lock.json's `recorded_at`) to the last
     * corrections file written; null without both. A run resumed later counts the pause too.
     */
    actual_seconds: number | null;
  };
  contrasts: { arm: string; vs: string; planned_mde: number | null; actual_mde: number | null }[];
}

type Planned = PlanLock & {
  planned?: {
    arms?: { arm: string; requests: number; prompt_tokens: number }[];
    totals?: { requests: number; prompt_tokens: number; est_seconds: number | null };
  };
};

const key = (arm: string, vs: string) => `${arm}\u0000${vs}`;

/** Is the contrast arm vs `vs` one the lock plans (in either direction) as confirmatory? */
export function lockedContrasts(lock: PlanLock): (c: { arm: string; vs: string }) => boolean {
  const planned = new Set(lock.contrasts.filter((c) => c.in_family).flatMap((c) => [key(c.arm, c.vs), key(c.vs, c.arm)]));
  return (c) => planned.has(key(c.arm, c.vs));
}

/** Requests and prompt tokens a corrections file records (one record per request); an arm sums its replicates'. */
function actualOf(file: string): { requests: number; prompt_tokens: number } {
  if (!existsSync(file)) return { requests: 0, prompt_tokens: 0 };
  let requests = 0,
    tokens = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    requests++;
    tokens += (JSON.parse(line) as { prompt_tokens?: number | null }).prompt_tokens ?? 0;
  }
  return { requests, prompt_tokens: tokens };
}

export function planCheck(
  read: ReadLock,
  resultsDir: string,
  arms: string[],
  contrasts: { arm: string; vs: string; mde: number | null }[],
  profiles: string[],
): PlanCheck {
  const lock = read.lock as Planned;
  const lockedArms = new Set(lock.arms.map((a) => a.name));
  const confirmatory = lockedContrasts(lock);
  const outputOf = (arm: string) => path.join(resultsDir, 'arms', arm, 'corrections.jsonl');
  const recorded = Object.fromEntries(arms.map((a) => [a, armPlanLock(outputOf(a))?.sha256 ?? null]));
  const lockedProfiles = new Set([lock.normalization.primary, ...lock.normalization.secondary]);
  let firstStarted = Infinity,
    lastWritten = -Infinity;
  const perArm = arms.map((arm) => {
    const planned = lock.planned?.arms?.find((p) => p.arm === arm);
    const replicates = replicateFolders(path.dirname(outputOf(arm)), Infinity).used;
    const files = [outputOf(arm), ...replicates.map((r) => path.join(r.dir, 'corrections.jsonl'))];
    for (const f of files) if (existsSync(f)) lastWritten = Math.max(lastWritten, statSync(f).mtimeMs);
    const started = armPlanLock(outputOf(arm))?.recorded_at;
    if (started) firstStarted = Math.min(firstStarted, Date.parse(started));
    const actual = files
      .map(actualOf)
      .reduce((x, y) => ({ requests: x.requests + y.requests, prompt_tokens: x.prompt_tokens + y.prompt_tokens }));
    return {
      arm,
      planned_requests: planned?.requests ?? null,
      actual_requests: actual.requests,
      planned_prompt_tokens: planned?.prompt_tokens ?? null,
      actual_prompt_tokens: actual.prompt_tokens,
    };
  });
  const sum = (f: (a: (typeof perArm)[number]) => number) => perArm.reduce((n, a) => n + f(a), 0);
  return {
    sha256: read.sha256,
    written_at: lock.written_at,
    after_first_correction: lock.after_first_correction,
    infer_recorded: recorded,
    not_under_lock: arms.filter((a) => recorded[a] !== read.sha256),
    exploratory: {
      arms: arms.filter((a) => !lockedArms.has(a)),
      contrasts: contrasts.filter((c) => !confirmatory(c)).map(({ arm, vs }) => ({ arm, vs })),
      profiles: profiles.filter((p) => !lockedProfiles.has(p)),
    },
    arms: perArm,
    totals: {
      planned_requests: lock.planned?.totals?.requests ?? null,
      actual_requests: sum((a) => a.actual_requests),
      planned_prompt_tokens: lock.planned?.totals?.prompt_tokens ?? null,
      actual_prompt_tokens: sum((a) => a.actual_prompt_tokens),
      planned_seconds: lock.planned?.totals?.est_seconds ?? null,
      actual_seconds: Number.isFinite(firstStarted) && lastWritten >= firstStarted ? Math.round((lastWritten - firstStarted) / 1000) : null,
    },
    contrasts: contrasts.map((c) => ({
      arm: c.arm,
      vs: c.vs,
      planned_mde: lock.contrasts.find((l) => key(l.arm, l.vs) === key(c.arm, c.vs) || key(l.vs, l.arm) === key(c.arm, c.vs))?.mde ?? null,
      actual_mde: c.mde,
    })),
  };
}
