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
  const start = () =>
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: cli },
        extraArgs: ['--log-level', 'error'],
        searchAttributes: opts.searchAttributes,
      },
    });
  // The SDK gives the dev server a fixed few seconds to listen; on a machine with both cores busy it can miss
  // that, so a start that did not come up in time is tried again (any other error is thrown at once).
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (e) {
      if (attempt >= START_ATTEMPTS || !/did not start within/.test(String((e as Error)?.message))) throw e;
      console.error(`Temporal dev server did not start in time (try ${attempt} of ${START_ATTEMPTS}); starting it again`);
    }
  }
}

const START_ATTEMPTS = 4;

export const WORKFLOWS = path.join(REPO_ROOT, 'workflows', 'index.ts');
