/**
 * Structured logging (pino). Log lines go to stderr so command output on stdout stays clean for pipes
 * (`phase5 retrieve --json | jq`). Level from PHASE5_LOG_LEVEL (default "info"; `npm test` uses "error").
 */
import pino from 'pino';

const level = process.env.PHASE5_LOG_LEVEL ?? (process.env.npm_lifecycle_event === 'test' ? 'error' : 'info');

export const logger = pino(
  { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime },
  pino.destination({ fd: 2, sync: true }),
);

export type Logger = pino.Logger;

/** A child logger for one component, e.g. `childLogger('openiti')`. */
export function childLogger(component: string, extra: Record<string, unknown> = {}): Logger {
  return logger.child({ component, ...extra });
}
