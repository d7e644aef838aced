import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { REPO_ROOT } from '../helpers/shared-data';
import { freePort } from '../../src/temporal/server';

describe('phase5 server start|stop|status (real dev server, own ports and db file)', function () {
  this.timeout(180000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'server-'));
  const configFile = path.join(dir, 'config.yaml');
  let port = 0;
  let uiPort = 0;
  const phase5 = (...args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120000,
    });
    return { code: r.status, out: r.stdout + r.stderr };
  };

  before(async () => {
    port = await freePort();
    uiPort = await freePort();
    writeFileSync(
      configFile,
      `temporal:\n  address: 127.0.0.1:${port}\n  ui_port: ${uiPort}\n  db_file: ${path.join(dir, 'temporal.db')}\n`,
    );
  });
  after(() => phase5('server', 'stop'));

  it('starts, says so when already running, serves the UI, stops, and keeps workflows across a restart', async () => {
    const first = phase5('server', 'start');
    expect(first.code, first.out).to.equal(0);
    expect(first.out).to.contain(`started at 127.0.0.1:${port}`);
    const again = phase5('server', 'start');
    expect(again.code).to.equal(0);
    expect(again.out).to.contain('already running');
    const status = phase5('server', 'status');
    expect(status.code).to.equal(0);
    expect(status.out).to.contain('running at');
    const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(ui.status).to.equal(200);

    // A workflow started before the stop is still listed after the restart (SQLite db file).
    let conn = await Connection.connect({ address: `127.0.0.1:${port}` });
    const workflowId = `persist-${Date.now()}`;
    await new Client({ connection: conn }).workflow.start('doctorWorkflow', {
      workflowId,
      taskQueue: 'nobody-polls',
      args: [{ queues: [], resultsDir: dir, pickupTimeout: '1s' }],
    });
    await conn.close();

    const stop = phase5('server', 'stop');
    expect(stop.out).to.contain('stopped');
    const down = phase5('server', 'status');
    expect(down.code).to.equal(1);
    expect(down.out).to.contain('not running');
    const unreachable = phase5('status', workflowId);
    expect(unreachable.code).to.equal(1);
    expect(unreachable.out).to.contain(`cannot reach Temporal at 127.0.0.1:${port}`);

    expect(phase5('server', 'start').code).to.equal(0);
    conn = await Connection.connect({ address: `127.0.0.1:${port}` });
    const desc = await new Client({ connection: conn }).workflow.getHandle(workflowId).describe();
    await conn.close();
    expect(desc.type).to.equal('doctorWorkflow');
  });

  it('a busy port gives a clear message', async () => {
    const blocker = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const busy = (blocker.address() as net.AddressInfo).port;
    const other = path.join(dir, 'busy.yaml');
    writeFileSync(
      other,
      `temporal:\n  address: 127.0.0.1:${busy}\n  ui_port: ${await freePort()}\n  db_file: ${path.join(dir, 'busy.db')}\n`,
    );
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', other, 'server', 'start'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60000,
    });
    blocker.close();
    expect(r.status).to.equal(1);
    expect(r.stderr).to.contain(`port ${busy} (frontend) on 127.0.0.1 is already in use`);
  });
});
