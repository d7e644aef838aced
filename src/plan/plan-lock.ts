/**
 * The frozen analysis plan (docs/plan.md#frozen-plan): `<results>/plan.lock.json`, written by `phase5 plan
 * --freeze`, identified by the sha256 of its bytes. Infer records that sha256 beside each arm's corrections
 * (`plan_lock.json`, once: the first infer after the freeze), and the analysis reads both: what the lock lacks
 * (an arm, a contrast, a profile) is exploratory, outside the confirmatory Holm family, and a lock written
 * after the first correction is flagged.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { resultDirs } from '../config/load';
import type { Config } from '../config/schema';
import { writeJsonAtomic } from '../io/jsonl';

export const PLAN_LOCK_FILE = 'plan.lock.json';
/** Beside an arm's corrections.jsonl: the lock infer ran under. */
export const ARM_PLAN_LOCK_FILE = 'plan_lock.json';

export interface LockedContrast {
  arm: string;
  vs: string;
  in_family: boolean;
  mde: number | null;
}

/** The parts of plan.lock.json that the analysis reads (the file holds more: see docs/plan.md#frozen-plan). */
export interface PlanLock {
  written_at: string;
  /** Corrected lines per arm when the lock was written: any > 0 means it was written after the first correction. */
  corrected_lines_at_freeze: Record<string, number>;
  after_first_correction: boolean;
  arms: { name: string }[];
  contrasts: LockedContrast[];
  normalization: { primary: string; secondary: string[]; collapse_whitespace: boolean };
  alpha: number;
}

export interface ReadLock {
  lock: PlanLock;
  sha256: string;
  file: string;
}

export function planLockPath(config: Config): string {
  return path.join(resultDirs(config).root, PLAN_LOCK_FILE);
}

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Write the lock (pretty JSON, one trailing newline) and return its sha256. */
export function writePlanLock(config: Config, lock: PlanLock & Record<string, unknown>): ReadLock {
  const file = planLockPath(config);
  const text = `${JSON.stringify(lock, null, 2)}\n`;
  writeJsonAtomic(file, lock); // the same bytes as `text`
  return { lock, sha256: sha256(text), file };
}

/** The lock of a results dir, or null when none was frozen; a lock that is not JSON is an error naming the file. */
export function readPlanLock(config: Config): ReadLock | null {
  const file = planLockPath(config);
  if (!existsSync(file)) return null;
  const bytes = readFileSync(file);
  try {
    return { lock: JSON.parse(bytes.toString('utf8')) as PlanLock, sha256: sha256(bytes), file };
  } catch (err) {
    throw new Error(`${file}: not valid JSON (${(err as Error).message}) — rewrite it with \`phase5 plan --freeze\``);
  }
}

/** What infer records beside an arm's corrections: the lock's sha256 when its first lines were corrected. */
export interface ArmLockRecord {
  sha256: string;
  recorded_at: string;
}

/** Record the current lock for an arm's output, once (a later run keeps the first record); nothing without a lock. */
export function recordPlanLock(config: Config, output: string, now = new Date()): ArmLockRecord | null {
  const current = readPlanLock(config);
  if (!current) return null;
  const file = path.join(path.dirname(output), ARM_PLAN_LOCK_FILE);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as ArmLockRecord;
  const record = { sha256: current.sha256, recorded_at: now.toISOString() };
  writeJsonAtomic(file, record);
  return record;
}

/** The lock infer recorded for an arm's output, or null. */
export function armPlanLock(output: string): ArmLockRecord | null {
  const file = path.join(path.dirname(output), ARM_PLAN_LOCK_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ArmLockRecord) : null;
}
