/**
 * freePort: the port it returns is still bindable by number, and it is held in TIME_WAIT (Linux), so no bind to
 * port 0 — the Temporal CLI's way of picking its internal ports — is handed the same port within the next minute.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../../src/temporal/server';

/** Local ports of 127.0.0.1 sockets in TIME_WAIT (state 06 in /proc/net/tcp). */
function timeWaitPorts(): Set<number> {
  const rows = readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1);
  return new Set(
    rows
      .map((r) => r.trim().split(/\s+/))
      .filter((c) => c[3] === '06' && c[1].startsWith('0100007F:'))
      .map((c) => parseInt(c[1].split(':')[1], 16)),
  );
}

const bindTo = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => s.close(() => resolve()));
  });

describe('temporal/freePort', () => {
  it('returns distinct ports that a server binds by number at once', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).to.equal(3);
    for (const p of ports) await bindTo(p);
  });

  it('leaves the port in TIME_WAIT, so a bind to port 0 is not handed it again', async function () {
    if (!existsSync('/proc/net/tcp')) this.skip();
    const port = await freePort();
    expect(timeWaitPorts().has(port), `port ${port} in TIME_WAIT`).to.equal(true);
  });
});
