/**
 * Which worker queue the endpoint gate pauses (bin/cli/worker-runtime.ts `endpointGate`), and the SDK slot
 * supplier over the gated slots. The gate's own behaviour is in test/llm/endpoint-health.test.ts; a worker
 * process that pauses and resumes is in test/e2e/infer-scale.test.ts.
 */
import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { EndpointHealthGate, GatedSlots } from '../../src/llm/endpoint-health';
import { endpointGate, gatedActivitySlots } from '../../bin/cli/worker-runtime';

const config = (patch: Record<string, unknown> = {}): Config =>
  parseConfig({ paths: { results_dir: path.join(os.tmpdir(), 'worker-gate') }, ...patch }, 'test', { env: {} });

const ctx = { slotType: 'activity' as const, taskQueue: 'phase5-gpu', workerIdentity: 'w', workerBuildId: '', isSticky: false };

describe('cli: the worker’s endpoint gate', () => {
  const both = ['phase5-cpu', 'phase5-gpu'];

  it('gates the queue infer runs on, and only with a worker-local base URL', () => {
    expect(endpointGate(config(), undefined, both)).to.equal(null);
    expect(endpointGate(config(), {}, both)).to.equal(null);
    expect(endpointGate(config(), { model: 'm', apiKeyEnv: 'K' }, both), 'no base URL: the config’s shared endpoints').to.equal(null);
    expect(endpointGate(config(), { baseUrl: 'http://127.0.0.1:8000/v1' }, ['phase5-cpu']), 'not serving the infer queue').to.equal(null);
    const gated = endpointGate(config(), { baseUrl: 'http://127.0.0.1:8000/v1' }, both);
    expect(gated?.queue).to.equal('phase5-gpu');
    expect(gated?.gate.isUp).to.equal(true);
    const onCpu = config({ temporal: { stages: { infer: { queue: 'cpu', start_to_close: '24h' } } } });
    expect(endpointGate(onCpu, { baseUrl: 'http://127.0.0.1:8000/v1' }, both)?.queue).to.equal('phase5-cpu');
  });

  it('the slot supplier hands out the gated slots: none while down, eager reservations never wait, aborts reject with the reason', async () => {
    const gate = new EndpointHealthGate({ baseUrl: 'http://127.0.0.1:9/v1', probe: async () => false });
    const slots = new GatedSlots(2, gate);
    const supplier = gatedActivitySlots(slots);
    expect(supplier.type).to.equal('custom');
    const permit = await supplier.reserveSlot(ctx, new AbortController().signal);
    expect(permit).to.deep.equal({});
    expect(supplier.tryReserveSlot(ctx)).to.deep.equal({});
    expect(supplier.tryReserveSlot(ctx), 'both slots taken').to.equal(null);
    supplier.markSlotUsed({ slotInfo: { type: 'activity', activityType: 'inferShard' }, permit });
    gate.markDown('connection refused');
    supplier.releaseSlot({ slotInfo: { type: 'activity', activityType: 'inferShard' }, permit });
    supplier.releaseSlot({ permit });
    expect(slots.inUse).to.equal(0);
    expect(supplier.tryReserveSlot(ctx), 'down').to.equal(null);
    const ac = new AbortController();
    const waiting = supplier.reserveSlot(ctx, ac.signal);
    const reason = new Error('Request Cancelled');
    ac.abort(reason);
    expect(
      await waiting.then(
        () => 'permit',
        (e: unknown) => e,
      ),
    ).to.equal(reason);
  });
});
