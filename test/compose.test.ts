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
