import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from './helpers/shared-data';
import { loadConfig, DEFAULT_CONFIG } from '../src/config/load';

describe('temporal-compose.yml', () => {
  const compose = YAML.parse(readFileSync(path.join(REPO_ROOT, 'temporal-compose.yml'), 'utf8'));

  it('declares the Temporal server, PostgreSQL and the UI', () => {
    expect(Object.keys(compose.services)).to.include.members(['temporal', 'postgresql', 'temporal-ui']);
    expect(compose.services.temporal.image).to.match(/^temporalio\/auto-setup:/);
    expect(compose.services['temporal-ui'].image).to.match(/^temporalio\/ui:/);
    expect(compose.services.postgresql.volumes.join(' ')).to.contain('/var/lib/postgresql/data');
  });

  it('publishes the same ports the default config uses', () => {
    const { config } = loadConfig(DEFAULT_CONFIG, { env: {} });
    const frontendPort = config.temporal.address.split(':').pop();
    expect(compose.services.temporal.ports).to.include(`${frontendPort}:7233`);
    expect(compose.services['temporal-ui'].ports.some((p: string) => p.startsWith(`${config.temporal.ui_port}:`))).to.equal(true);
    expect(compose.services['temporal-ui'].environment.TEMPORAL_ADDRESS).to.equal('temporal:7233');
  });
});

/**
 * The mutual-TLS override (docs/cluster.md#temporal-composeyml-with-tls): it only adds to the plain file's services,
 * every certificate it mounts is one scripts/temporal-certs.sh writes, the frontend demands client certificates
 * signed by that CA, and one server name — a name the server certificate holds — is used by every client of it.
 * That the script's certificates carry a real mTLS connection is checked in test/cluster/mtls.test.ts.
 */
describe('temporal-compose.tls.yml', () => {
  const read = (f: string) => YAML.parse(readFileSync(path.join(REPO_ROOT, f), 'utf8'));
  const plain = read('temporal-compose.yml');
  const tls = read('temporal-compose.tls.yml');
  const script = readFileSync(path.join(REPO_ROOT, 'scripts', 'temporal-certs.sh'), 'utf8');
  const env = (service: string) => tls.services[service].environment as Record<string, string>;

  it('overrides only services of temporal-compose.yml, mounting ./certs read-only', () => {
    expect(Object.keys(tls.services)).to.deep.equal(['temporal', 'temporal-ui']);
    for (const name of Object.keys(tls.services)) {
      expect(plain.services[name], name).to.be.an('object');
      expect(tls.services[name].image, `${name} keeps the plain file's image`).to.equal(undefined);
      expect(tls.services[name].volumes).to.deep.equal(['./certs:/certs:ro']);
    }
  });

  it('names only certificates and keys the certificate script writes', () => {
    const files = Object.values(tls.services).flatMap((s) => Object.values((s as { environment: Record<string, string> }).environment));
    const mounted = files.filter((v) => v.startsWith('/certs/')).map((v) => v.slice('/certs/'.length));
    expect(mounted.length).to.be.greaterThan(10);
    for (const f of new Set(mounted))
      expect(script, `scripts/temporal-certs.sh writes ${f}`).to.match(new RegExp(`\\b${f.replace('.', '\\.')}\\b`));
  });

  it('demands client certificates signed by the CA on the frontend', () => {
    expect(env('temporal')).to.include({
      TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: 'true',
      TEMPORAL_TLS_CLIENT1_CA_CERT: '/certs/ca.crt',
      TEMPORAL_TLS_FRONTEND_CERT: '/certs/server.crt',
      TEMPORAL_TLS_SERVER_CA_CERT: '/certs/ca.crt',
    });
  });

  it('uses one server name, held by the server certificate, for every client of the frontend', () => {
    const names = [
      env('temporal').TEMPORAL_TLS_INTERNODE_SERVER_NAME,
      env('temporal').TEMPORAL_TLS_FRONTEND_SERVER_NAME,
      env('temporal').TEMPORAL_TLS_SERVER_NAME,
      env('temporal-ui').TEMPORAL_TLS_SERVER_NAME,
    ];
    expect(new Set(names)).to.deep.equal(new Set(['temporal']));
    expect(script).to.match(/san="DNS:temporal,/);
    // The header's phase5 variables say the same name.
    expect(readFileSync(path.join(REPO_ROOT, 'temporal-compose.tls.yml'), 'utf8')).to.contain('TEMPORAL_TLS_SERVER_NAME=temporal');
  });
});
