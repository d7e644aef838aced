/**
 * Output for a person: log records as plain lines (never JSON unless asked), repeated warnings aggregated into
 * one line with a count, progress lines in the `export 1,200/5,092 lines · 82 lines/s · ETA 47 s` form at most
 * every 10 s, and the running shards' heartbeats summed into the stage's position.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { humanLine, WarningAggregator } from '../../src/util/log';
import { progressLine } from '../../src/util/progress';
import { combineProgress, type PendingActivityView, type StatusView } from '../../src/temporal/client';
import { ProgressLines } from '../../bin/cli/watch';
import { REPO_ROOT } from '../helpers/shared-data';
import { isJsonObjectLine } from '../helpers/output-lines';

const isJson = isJsonObjectLine;

/** Logs 31 metadata-row warnings, an error and an info line from a child process in the given format. */
function logFromChild(env: NodeJS.ProcessEnv): string[] {
  const code = `
    import { childLogger, flushLogs } from './src/util/log.ts';
    const log = childLogger('openiti');
    log.info({ index: 'x.usearch' }, 'index loaded');
    for (let i = 0; i < 31; i++) log.warn({ reason: 'author_not_in_checkout', path: 'data/0' + i + 'Author/x', summary: 'metadata rows skipped: author not in this checkout' }, 'openiti: author_not_in_checkout');
    log.error({ file: 'y' }, 'something broke');
    flushLogs();`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, PHASE5_LOG_LEVEL: 'info', ...env },
  });
  expect(r.status, r.stderr).to.equal(0);
  return r.stderr.split('\n').filter(Boolean);
}

describe('human output', () => {
  it('one plain line per log record: the message for info, `warn: message (fields)` above', () => {
    expect(humanLine({ level: 30, msg: 'index loaded', index: 'a' })).to.equal('index loaded');
    expect(humanLine({ level: 40, msg: 'disk low', component: 'io', free: 3 })).to.equal('warn: disk low (free=3)');
  });

  it('aggregates repeated warnings into one line with the count and the first one', () => {
    const out: string[] = [];
    const agg = new WarningAggregator((l) => out.push(l));
    for (let i = 0; i < 31; i++)
      agg.add({
        level: 40,
        msg: 'openiti: author_not_in_checkout',
        path: `data/${i}`,
        summary: 'metadata rows skipped: author not in this checkout',
      });
    agg.add({ level: 40, msg: 'a single warning', detail: 'd' });
    agg.flush();
    expect(out).to.deep.equal([
      'warn: 31 metadata rows skipped: author not in this checkout (first: path=data/0)',
      'warn: a single warning (detail=d)',
    ]);
    agg.flush();
    expect(out, 'flushed once').to.have.length(2);
  });

  it('human format (the default of the CLI) prints no JSON line; json format prints pino lines', () => {
    const human = logFromChild({ PHASE5_LOG_FORMAT: 'human' });
    expect(human.filter(isJson), human.join('\n')).to.deep.equal([]);
    expect(human).to.include('index loaded');
    expect(human.filter((l) => l.includes('author not in this checkout'))).to.deep.equal([
      'warn: 31 metadata rows skipped: author not in this checkout (first: reason=author_not_in_checkout, path=data/00Author/x)',
    ]);
    expect(human).to.include('error: something broke (file=y)');
    const json = logFromChild({ PHASE5_LOG_FORMAT: 'json' });
    expect(json.every(isJson), json.join('\n')).to.equal(true);
    expect(json).to.have.length(33);
  });

  it('progress lines: done/total with unit, rate and ETA', () => {
    expect(progressLine('export', 1200, 5092, 'lines', 82.4, 47.2)).to.equal('export 1,200/5,092 lines · 82 lines/s · ETA 47 s');
    expect(progressLine('export', 0, 10, 'lines', null, null)).to.equal('export 0/10 lines');
  });

  /** The lines a 10 s ProgressLines prints when shown `viewAt(t)` every second from 0 to `untilMs`. */
  function printedOver(untilMs: number, viewAt: (t: number) => StatusView): string[] {
    let now = 0;
    const out: string[] = [];
    const lines = new ProgressLines(
      (l) => out.push(l),
      10_000,
      () => now,
    );
    for (let t = 0; t <= untilMs; t += 1000) {
      now = t;
      lines.show(viewAt(t));
    }
    return out;
  }

  it('prints the stage when it starts and its position at most every 10 s', () => {
    const view = (done: number): StatusView => ({
      workflowId: 'phase5-x-export',
      status: 'RUNNING',
      progress: {
        workflow: 'exportWorkflow',
        stage: 'export',
        step: 'shards',
        done: 0,
        total: 2,
        unit: 'shards',
        startedAt: '',
        updatedAt: '',
        stages: {},
        results: {},
      },
      activity: null,
      activities: [],
      work: { done, total: 100, unit: 'lines' },
      rate: null,
      etaSeconds: null,
    });
    expect(printedOver(25_000, (t) => view(t / 1000))).to.deep.equal([
      'export started (phase5-x-export)',
      'export 0/100 lines',
      'export 10/100 lines',
      'export 20/100 lines',
    ]);
  });

  it('prints a position once: a stalled count is not repeated, with a new rate or ETA or not, and a move shows at the next tick', () => {
    const view = (done: number, eta: number): StatusView => ({
      workflowId: 'phase5-x-probe',
      status: 'RUNNING',
      progress: null,
      activity: { type: 'probeJob', attempt: 1, heartbeat: null },
      activities: [],
      work: { done, total: 60, unit: 'texts' },
      rate: 0.1,
      etaSeconds: eta,
    });
    // 20 texts for 40 s (the ETA drifting), then 21 at 41 s.
    expect(printedOver(45_000, (t) => view(t <= 40_000 ? 20 : 21, 400 + t / 1000))).to.deep.equal([
      'probeJob 20/60 texts · 0.1 texts/s · ETA 7 min',
      'probeJob 21/60 texts · 0.1 texts/s · ETA 7 min',
    ]);
  });

  it('sums the heartbeats of the running shards with the lines of the finished ones', () => {
    const now = Date.parse('2026-01-01T00:00:10Z');
    const shard = (done: number): PendingActivityView => ({
      type: 'exportShard',
      attempt: 1,
      heartbeat: { step: 'd#0', done, total: 500, unit: 'records', attemptStartedAt: '2026-01-01T00:00:00Z', doneAtAttemptStart: 0 },
    });
    const p = combineProgress([shard(100), shard(300)], { done: 1000, total: 5000 }, now);
    expect(p.work).to.deep.equal({ done: 1400, total: 5000, unit: 'lines' });
    expect(p.rate).to.equal(40);
    expect(p.etaSeconds).to.equal(90);
  });
});
