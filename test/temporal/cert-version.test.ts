/**
 * src/temporal/cert-version.ts on certificates made by openssl: `openssl x509 -req` without extensions writes
 * v1, with an extensions file v3, and `openssl req -x509` (a self-signed CA) v3; the version read from the DER
 * matches what openssl itself prints, and only a non-v3 client certificate gets the one-line problem.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { clientCertVersionProblem, x509Version } from '../../src/temporal/cert-version';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

describe('temporal/cert-version: the X.509 version of a client certificate', function () {
  this.timeout(60000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cert-version-'));
  const openssl = (...args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const der = (name: string) => new X509Certificate(readFileSync(path.join(dir, name))).raw;

  before(function () {
    if (spawnSync('openssl', ['version']).status !== 0) {
      console.log('    skipped: openssl is not installed');
      this.skip();
    }
    openssl('req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=ca');
    openssl('req', '-new', ...EC, '-keyout', 'c.key', '-out', 'c.csr', '-subj', '/CN=c');
    const sign = (out: string, ...more: string[]) =>
      openssl('x509', '-req', '-in', 'c.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', out, '-days', '2', ...more);
    sign('v1.crt');
    writeFileSync(path.join(dir, 'client.ext'), 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
    sign('v3.crt', '-extfile', 'client.ext');
  });

  it('reads the version from the DER as openssl prints it: v1 without extensions, v3 with them', () => {
    for (const [file, version] of [
      ['v1.crt', 1],
      ['v3.crt', 3],
      ['ca.crt', 3],
    ] as const) {
      expect(x509Version(der(file)), file).to.equal(version);
      expect(openssl('x509', '-in', file, '-noout', '-text'), file).to.match(new RegExp(`Version: ${version} \\(0x${version - 1}\\)`));
    }
  });

  it('names the file and the fix for a v1 certificate, and nothing for v3', () => {
    const v1 = path.join(dir, 'v1.crt');
    expect(clientCertVersionProblem(readFileSync(v1), v1)).to.match(
      new RegExp(
        `^the client certificate ${v1.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is X\\.509 v1; Temporal's TLS needs v3 — re-issue it with extensions: `,
      ),
    );
    expect(clientCertVersionProblem(readFileSync(path.join(dir, 'v3.crt')), 'v3.crt')).to.equal(null);
  });

  it('refuses what is not a certificate rather than guessing a version', () => {
    expect(() => x509Version(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01]))).to.throw(/not an X\.509 certificate|truncated/);
    expect(() => x509Version(Buffer.from([0x30, 0x82, 0xff]))).to.throw(/DER/);
  });
});
