/**
 * Where the Temporal connection's settings come from (src/temporal/connection-options.ts, docs/cluster.md):
 * Temporal's environment variables over a TOML profile over the config's `temporal` block; TLS and the API key
 * only from Temporal's configuration; `temporal.ui_url` for UI links.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../src/config/load';
import { connectOptions, describeSecurity, TemporalProfileError } from '../../src/temporal/connection-options';
import { uiBaseUrl, workflowUiLink } from '../../src/temporal/ui-link';

describe('temporal/connection-options: Temporal’s own client configuration', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envconfig-'));
  const toml = path.join(dir, 'temporal.toml');
  writeFileSync(
    toml,
    [
      '[profile.default]',
      'address = "10.1.1.1:7233"',
      'namespace = "lab"',
      '[profile.cloud]',
      'address = "ns.acct.tmprl.cloud:7233"',
      'namespace = "ns.acct"',
      'api_key = "k-123"',
      '[profile.mtls]',
      'address = "10.2.2.2:7233"',
      '[profile.mtls.tls]',
      `server_ca_cert_data = "CA"`,
      `client_cert_data = "CERT"`,
      `client_key_data = "KEY"`,
      'server_name = "temporal.lab"',
    ].join('\n'),
  );
  const config = (env: Record<string, string>, raw: object = { temporal: { address: '127.0.0.9:7000', namespace: 'cfg' } }) =>
    parseConfig(raw, 'x.yaml', { env });

  it('without Temporal settings: the config block, plain TCP', () => {
    const c = config({});
    expect([c.temporal.address, c.temporal.namespace]).to.deep.equal(['127.0.0.9:7000', 'cfg']);
    const o = connectOptions(c, {});
    expect(o).to.deep.equal({ address: '127.0.0.9:7000' });
    expect(describeSecurity(o)).to.equal('plain TCP');
  });

  it('a TOML profile overrides the config block; TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE override the profile', () => {
    expect(config({ TEMPORAL_CONFIG_FILE: toml }).temporal).to.include({ address: '10.1.1.1:7233', namespace: 'lab' });
    const env = { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_ADDRESS: '10.9.9.9:7233', TEMPORAL_NAMESPACE: 'env' };
    expect(config(env).temporal).to.include({ address: '10.9.9.9:7233', namespace: 'env' });
  });

  it('an API key turns TLS on (Temporal Cloud); the key never enters the phase5 config', () => {
    const env = { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud' };
    const c = config(env);
    expect(JSON.stringify(c)).to.not.contain('k-123');
    const o = connectOptions(c, env);
    expect(o).to.deep.include({ address: 'ns.acct.tmprl.cloud:7233', apiKey: 'k-123', tls: true });
    expect(describeSecurity(o)).to.equal('TLS + API key');
  });

  it('mutual TLS from a profile, and from TEMPORAL_TLS_* variables over it', () => {
    const env = { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'mtls' };
    const o = connectOptions(config(env), env);
    expect(describeSecurity(o)).to.equal('mutual TLS');
    const tls = o.tls as { serverNameOverride: string; serverRootCACertificate: Uint8Array; clientCertPair: { crt: Uint8Array } };
    expect(tls.serverNameOverride).to.equal('temporal.lab');
    expect(Buffer.from(tls.serverRootCACertificate).toString()).to.equal('CA');
    const over = connectOptions(config(env), { ...env, TEMPORAL_TLS_SERVER_NAME: 'other.lab' });
    expect((over.tls as typeof tls).serverNameOverride).to.equal('other.lab');
    // Both a path and data for one certificate: a one-line error naming the file and profile.
    expect(() => connectOptions(config(env), { ...env, TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.crt' })).to.throw(
      TemporalProfileError,
      `TEMPORAL_CONFIG_FILE ${toml} (profile mtls): Cannot specify both client_cert_path and client_cert_data`,
    );
    expect(connectOptions(config(env), { ...env, TEMPORAL_TLS: 'false' }).tls).to.equal(false);
  });

  it('a profile the file lacks, or a file that does not parse, is a config error naming the file', () => {
    expect(() => config({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'nope' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(new RegExp(`${toml}.*profile nope.*'nope' not found`, 's'));
    const bad = path.join(dir, 'bad.toml');
    writeFileSync(bad, '[profile.default\naddress = 1');
    expect(() => config({ TEMPORAL_CONFIG_FILE: bad })).to.throw(ConfigError, bad);
  });

  it('UI links: temporal.ui_url when set, else the dev server UI on the frontend host', () => {
    const plain = config({}).temporal;
    expect(uiBaseUrl(plain)).to.equal('http://127.0.0.9:8233');
    const withUi = config(
      {},
      { temporal: { address: 'ns.acct.tmprl.cloud:7233', namespace: 'ns.acct', ui_url: 'https://cloud.temporal.io/' } },
    ).temporal;
    expect(workflowUiLink(withUi, 'phase5-run a')).to.equal('https://cloud.temporal.io/namespaces/ns.acct/workflows/phase5-run%20a');
    expect(() => config({}, { temporal: { ui_url: 'ftp://x' } })).to.throw(ConfigError, 'temporal.ui_url');
  });
});
