import path from 'node:path';
import { existsSync } from 'node:fs';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { SearchAttributeType } from '@temporalio/common';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';
import { REPO_ROOT } from './shared-data';
import { resolveTemporalCli } from '../../src/temporal/server';

/** A real local Temporal server from the CLI that setup installed — nothing is downloaded at test time. */
let runtimeReady = false;
/**
 * The SDK runtime for the whole mocha process, installed by whichever test needs Temporal first (a replay or
 * an in-process worker would otherwise instantiate a default one and a later install would throw).
 */
export function installTestRuntime(): void {
  if (runtimeReady) return;
  // Expected activity failures in tests would otherwise print SDK warnings with stacks.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  runtimeReady = true;
}

export async function createLocalEnv(
  opts: { searchAttributes?: SearchAttributeKey<SearchAttributeType>[] } = {},
): Promise<TestWorkflowEnvironment> {
  installTestRuntime();
  const cli = resolveTemporalCli();
  if (!existsSync(cli) && !cli.includes('/')) throw new Error('Temporal CLI missing: run npm run setup');
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cli },
      extraArgs: ['--log-level', 'error'],
      searchAttributes: opts.searchAttributes,
    },
  });
}

export const WORKFLOWS = path.join(REPO_ROOT, 'workflows', 'index.ts');
