/**
 * A real TLS terminator for tests: certificates made with openssl (a CA, a server certificate for
 * localhost/127.0.0.1, client certificates — one valid, one expired, one from another CA) and nginx with
 * `grpc_pass` and `ssl_verify_client on` in front of a Temporal frontend, on 127.0.0.1 only.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, portOpen } from '../../src/temporal/server';

/** Why this machine cannot run the test (no nginx, no openssl), or null. */
export function tlsTerminatorMissing(): string | null {
  for (const [bin, args] of [
    ['nginx', ['-v']],
    ['openssl', ['version']],
  ] as const) {
    const r = spawnSync(bin, args, { encoding: 'utf8' });
    if (r.error || r.status !== 0)
      return `${bin} is not installed (Debian: apt-get install nginx openssl, or \`node scripts/setup.mjs --with-nginx\`)`;
  }
  return null;
}

function openssl(dir: string, args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCa(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', ...EC, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`]);
}

/**
 * A certificate `name` signed by CA `ca`; `days` -1 makes one that has expired. `v1`: no extensions file, so
 * `openssl x509 -req` writes an X.509 v1 certificate (extensions need v3).
 */
function makeLeaf(dir: string, ca: string, name: string, usage: 'serverAuth' | 'clientAuth', days = 2, v1 = false): void {
  openssl(dir, ['req', '-new', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  const ext = `${name}.ext`;
  const san = usage === 'serverAuth' ? 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' : '';
  writeFileSync(path.join(dir, ext), `${san}extendedKeyUsage=${usage}\nbasicConstraints=CA:FALSE\n`);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    String(days),
    ...(v1 ? [] : ['-extfile', ext]),
  ]);
}

export interface TestCerts {
  dir: string;
  /** The CA that signed the server and the valid client certificates. */
  ca: string;
  /** Another CA: trusting it is "a wrong CA"; a client certificate it signed is refused by nginx. */
  otherCa: string;
  client: { cert: string; key: string };
  expiredClient: { cert: string; key: string };
  /** A client certificate without extensions: X.509 v1, which Temporal's Rust client (rustls) refuses. */
  v1Client: { cert: string; key: string };
  server: { cert: string; key: string };
}

export function makeTestCerts(dir: string): TestCerts {
  mkdirSync(dir, { recursive: true });
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  makeLeaf(dir, 'ca', 'server', 'serverAuth');
  makeLeaf(dir, 'ca', 'client', 'clientAuth');
  makeLeaf(dir, 'ca', 'expired-client', 'clientAuth', -1);
  makeLeaf(dir, 'ca', 'v1-client', 'clientAuth', 2, true);
  const p = (f: string) => path.join(dir, f);
  const pair = (n: string) => ({ cert: p(`${n}.crt`), key: p(`${n}.key`) });
  return {
    dir,
    ca: p('ca.crt'),
    otherCa: p('other-ca.crt'),
    client: pair('client'),
    expiredClient: pair('expired-client'),
    v1Client: pair('v1-client'),
    server: pair('server'),
  };
}

/** A trailers-only gRPC answer: status 7 (PERMISSION_DENIED). */
const OPERATOR_REFUSED = `
    location /temporal.api.operatorservice.v1.OperatorService/ {
      default_type application/grpc;
      add_header grpc-status 7 always;
      add_header grpc-message "operator%20service%20refused%20by%20the%20terminator" always;
      return 200;
    }`;

export interface Terminator {
  /** 127.0.0.1:<port> where nginx terminates TLS. */
  address: string;
  stop(): Promise<void>;
}

/**
 * nginx terminating mutual TLS on a free port and passing gRPC to `upstream` (host:port, plain HTTP/2). With
 * `refuseOperator` the operator service answers PERMISSION_DENIED, as on a cluster without operator rights.
 */
export async function startTerminator(certs: TestCerts, upstream: string, opts: { refuseOperator?: boolean } = {}): Promise<Terminator> {
  const port = await freePort();
  const dir = path.join(certs.dir, 'nginx');
  mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const conf = `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 256; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port} ssl http2;
    ssl_certificate ${certs.server.cert};
    ssl_certificate_key ${certs.server.key};
    ssl_client_certificate ${certs.ca};
    ssl_verify_client on;
    grpc_read_timeout 120s;
    grpc_send_timeout 120s;
    client_max_body_size 0;
    location / { grpc_pass grpc://${upstream}; }${opts.refuseOperator ? OPERATOR_REFUSED : ''}
  }
}
`;
  const confFile = path.join(dir, 'nginx.conf');
  writeFileSync(confFile, conf);
  const child: ChildProcess = spawn('nginx', ['-p', dir, '-c', confFile, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const deadline = Date.now() + 10_000;
  while (!(await portOpen('127.0.0.1', port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const log = existsSync(path.join(dir, 'logs', 'error.log')) ? readFileSync(path.join(dir, 'logs', 'error.log'), 'utf8') : '';
      throw new Error(`nginx did not start: ${stderr}${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    address: `127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      await exited;
    },
  };
}
