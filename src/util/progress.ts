/**
 * Progress for long work: a bar in a terminal, structured log lines otherwise (CI, workers, pipes).
 * Callers also pass an optional `onTick` (activities use it to heartbeat).
 */
import cliProgress from 'cli-progress';
import { flushLogs, logger } from './log';

export interface Progress {
  /** Advance by `n` (default 1). */
  tick(n?: number): void;
  /** Set the absolute position. */
  update(done: number): void;
  readonly done: number;
  stop(): void;
}

export interface ProgressOptions {
  label: string;
  total: number;
  /** Start position (for resumed work). */
  start?: number;
  /** Log line interval in ms when not in a TTY (default 10 s). */
  logEveryMs?: number;
  /** What is counted, for log lines (`export 1,200/5,092 lines · 82 lines/s · ETA 47 s`). */
  unit?: string;
  /** Force bar or log mode (default: bar when stderr is a TTY). */
  mode?: 'bar' | 'log' | 'silent';
}

export function createProgress(opts: ProgressOptions): Progress {
  const mode = opts.mode ?? (process.stderr.isTTY && !process.env.CI ? 'bar' : 'log');
  let done = opts.start ?? 0;
  const startedAt = Date.now();
  const startDone = done;
  if (mode === 'bar') {
    const bar = new cliProgress.SingleBar(
      {
        format: `${opts.label} [{bar}] {value}/{total} {percentage}% | {rate}/s | ETA {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(opts.total, done, { rate: '0' });
    const rate = () => ((done - startDone) / Math.max(1e-3, (Date.now() - startedAt) / 1000)).toFixed(1);
    return {
      tick(n = 1) {
        done += n;
        bar.update(done, { rate: rate() });
      },
      update(d) {
        done = d;
        bar.update(done, { rate: rate() });
      },
      get done() {
        return done;
      },
      stop() {
        bar.stop();
      },
    };
  }
  const every = opts.logEveryMs ?? 10_000;
  let lastLog = 0;
  const log = (final = false) => {
    if (mode === 'silent') return;
    const now = Date.now();
    if (!final && now - lastLog < every) return;
    lastLog = now;
    const secs = Math.max(1e-3, (now - startedAt) / 1000);
    const rate = (done - startDone) / secs;
    const eta = rate > 0 ? Math.round((opts.total - done) / rate) : null;
    flushLogs();
    logger.info(
      { progress: opts.label, done, total: opts.total, rate: Number(rate.toFixed(2)), eta_s: eta },
      progressLine(opts.label, done, opts.total, opts.unit, rate, eta),
    );
  };
  return {
    tick(n = 1) {
      done += n;
      log();
    },
    update(d) {
      done = d;
      log();
    },
    get done() {
      return done;
    },
    stop() {
      log(true);
    },
  };
}

const num = (n: number) => Math.round(n).toLocaleString('en-US');

/** `export 1,200/5,092 lines · 82 lines/s · ETA 47 s` (rate and ETA only once known). */
export function progressLine(
  label: string,
  done: number,
  total: number,
  unit: string | undefined,
  rate: number | null,
  etaSeconds: number | null,
): string {
  const u = unit ? ` ${unit}` : '';
  const parts = [`${label} ${num(done)}/${num(total)}${u}`];
  if (rate !== null && rate > 0) parts.push(`${rate >= 10 ? num(rate) : rate.toFixed(1)}${u}/s`);
  if (etaSeconds !== null && Number.isFinite(etaSeconds)) parts.push(`ETA ${formatSeconds(etaSeconds)}`);
  return parts.join(' · ');
}

export function formatSeconds(s: number): string {
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
