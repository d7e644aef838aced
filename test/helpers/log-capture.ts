/**
 * Capture what the project logs (pino: every child logger writes to the root logger's stream) and, optionally,
 * everything written to process.stdout / process.stderr (console, the Temporal SDK's default logger), for tests
 * that assert on log lines or on what must never be logged. The level is lowered to `debug` while capturing,
 * so assertions do not depend on PHASE5_LOG_LEVEL (`npm test` logs errors only).
 */
import pino from 'pino';
import { logger } from '../../src/util/log';

export interface LogRecord {
  level: number;
  msg: string;
  component?: string;
  [k: string]: unknown;
}

export interface LogCapture {
  /** Raw pino output (NDJSON). */
  text(): string;
  records(): LogRecord[];
  /** What was written to stdout/stderr meanwhile (when `stdio` was asked for). */
  stdio(): string;
  stop(): void;
}

export function captureLogs(opts: { stdio?: boolean; level?: pino.LevelWithSilent } = {}): LogCapture {
  const sym = pino.symbols.streamSym as unknown as string;
  const root = logger as unknown as Record<string, unknown>;
  const originalStream = root[sym];
  const originalLevel = logger.level;
  const chunks: string[] = [];
  root[sym] = { write: (s: string) => void chunks.push(s) };
  logger.level = opts.level ?? 'debug';
  const io: string[] = [];
  const restore: (() => void)[] = [];
  if (opts.stdio) {
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write;
      stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
        io.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
        return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
      } as typeof stream.write;
      restore.push(() => (stream.write = write));
    }
  }
  return {
    text: () => chunks.join(''),
    records: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogRecord),
    stdio: () => io.join(''),
    stop: () => {
      root[sym] = originalStream;
      logger.level = originalLevel;
      for (const r of restore) r();
    },
  };
}
