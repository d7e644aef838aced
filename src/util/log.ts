/**
 * Logging (pino). Log lines go to stderr so command output on stdout stays clean for pipes
 * (`phase5 retrieve --json | jq`). Level from PHASE5_LOG_LEVEL (default "info"; `npm test` uses "error").
 *
 * Two formats: `json` (pino's structured lines, for machines: workers, log collectors) and `human` (one plain
 * line per message — `warn: …` — for a person; the CLI's default). Format from PHASE5_LOG_FORMAT, else json;
 * the CLI sets it with `setLogFormat` (`--log-format`). In human mode, repeated warnings with the same message
 * are aggregated into one line with a count (`31 metadata rows skipped: … (first: …)`), flushed a moment after
 * the last one or by `flushLogs()`.
 */
import { writeSync } from 'node:fs';
import pino from 'pino';

export type LogFormat = 'human' | 'json';

const level = process.env.PHASE5_LOG_LEVEL ?? (process.env.npm_lifecycle_event === 'test' ? 'error' : 'info');

/** PHASE5_LOG_FORMAT when it names a format, else undefined. */
export function envLogFormat(env: NodeJS.ProcessEnv = process.env): LogFormat | undefined {
  const f = env.PHASE5_LOG_FORMAT;
  return f === 'json' || f === 'human' ? f : undefined;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'component', 'summary', 'pid', 'hostname']);

/** `key=value` for the simple fields of a record (what a person needs to act on a warning). */
function fieldText(rec: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(rec)) {
    if (HIDDEN_FIELDS.has(k) || v === null || v === undefined) continue;
    const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
    parts.push(`${k}=${s.length > 160 ? `${s.slice(0, 157)}…` : s}`);
  }
  return parts.join(', ');
}

/** One plain line for a pino record: the message for info, `warn: message (fields)` above it. */
export function humanLine(rec: Record<string, unknown>): string {
  const lvl = typeof rec.level === 'number' ? rec.level : 30;
  const name = LEVEL_NAMES[lvl] ?? String(lvl);
  const msg = String(rec.msg ?? '');
  if (lvl <= 30) return lvl === 30 ? msg : `${name}: ${msg}`;
  const fields = fieldText(rec);
  return `${name}: ${msg}${fields ? ` (${fields})` : ''}`;
}

interface Pending {
  first: Record<string, unknown>;
  count: number;
}

/**
 * Collects warnings (and records that carry a `summary`) by message; `flush()` writes one line per message: the line itself when it came once,
 * else `warn: <count> <summary or message> (first: <fields of the first>)`.
 */
export class WarningAggregator {
  private readonly pending = new Map<string, Pending>();
  constructor(private readonly write: (line: string) => void) {}

  add(rec: Record<string, unknown>): void {
    const key = `${rec.level}|${String(rec.msg)}`;
    const p = this.pending.get(key);
    if (p) p.count++;
    else this.pending.set(key, { first: rec, count: 1 });
  }

  get size(): number {
    return this.pending.size;
  }

  flush(): void {
    for (const { first, count } of this.pending.values()) {
      if (count === 1) this.write(humanLine(first));
      else {
        const name = LEVEL_NAMES[first.level as number] ?? 'warn';
        const what = typeof first.summary === 'string' ? first.summary : `× ${String(first.msg)}`;
        const fields = fieldText(first);
        this.write(`${name}: ${count} ${what}${fields ? ` (first: ${fields})` : ''}`);
      }
    }
    this.pending.clear();
  }
}

let format: LogFormat = envLogFormat() ?? 'json';
const writeStderr = (line: string) => void writeSync(2, `${line}\n`);
const aggregator = new WarningAggregator(writeStderr);
let flushTimer: NodeJS.Timeout | null = null;

export function setLogFormat(f: LogFormat): void {
  flushLogs();
  format = f;
}

export function logFormat(): LogFormat {
  return format;
}

/** Write the aggregated warnings now (before a progress line, at the end of a command). */
export function flushLogs(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  aggregator.flush();
}

/** The root logger's stream: pino's lines as they are, or one plain line each (warnings aggregated). */
const sink = {
  write(line: string): void {
    if (format === 'json') return void writeSync(2, line);
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return void writeSync(2, line);
    }
    if ((rec.level as number) !== 40 && typeof rec.summary !== 'string') return writeStderr(humanLine(rec));
    aggregator.add(rec);
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = setTimeout(flushLogs, 1000);
    flushTimer.unref();
  },
};

export const logger = pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, sink);

process.once('exit', () => aggregator.size > 0 && aggregator.flush());

export type Logger = pino.Logger;

/** A child logger for one component, e.g. `childLogger('openiti')`. */
export function childLogger(component: string, extra: Record<string, unknown> = {}): Logger {
  return logger.child({ component, ...extra });
}
