/** `phase5 doctor`: the checks one worker runs on its own machine, on each queue it serves. */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { checkWorkerNeeds } from '../src/stages/infer/worker-needs';
import type { DoctorCheck, DoctorReport } from '../src/temporal/types';

async function check(name: string, fn: () => Promise<string> | string): Promise<DoctorCheck> {
  try {
    return { name, ok: true, detail: await fn() };
  } catch (err) {
    return { name, ok: false, detail: (err as Error).message.split('\n')[0] };
  }
}

export async function checkEnvironment(args: { queue: string; resultsDir: string; config?: Config }): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  checks.push(await check('worker reachable', () => `${os.hostname()} pid ${process.pid}, node ${process.version}`));
  checks.push(
    await check('assets (sha256)', () => {
      const r = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'setup.mjs'), '--check', '--json'], { encoding: 'utf8' });
      const res = JSON.parse(r.stdout || '{}') as {
        ok?: boolean;
        error?: string;
        assets?: { name: string; ok: boolean; detail: string }[];
      };
      const bad = (res.assets ?? []).filter((a) => !a.ok);
      if (res.error) throw new Error(res.error);
      if (bad.length) throw new Error(bad.map((a) => `${a.name}: ${a.detail}`).join('; '));
      return `${res.assets?.length ?? 0} assets present, sha256 ok`;
    }),
  );
  checks.push(
    await check('results dir writable', () => {
      mkdirSync(args.resultsDir, { recursive: true });
      accessSync(args.resultsDir, constants.W_OK);
      const probe = path.join(args.resultsDir, `.doctor-${process.pid}`);
      writeFileSync(probe, 'ok');
      rmSync(probe);
      return args.resultsDir;
    }),
  );
  checks.push(
    await check('onnxruntime-node', async () => {
      const ort = await import('onnxruntime-node');
      return `loaded (${Object.keys(ort).includes('InferenceSession') ? 'InferenceSession ok' : 'no InferenceSession'})`;
    }),
  );
  checks.push(
    await check('usearch', async () => {
      const { default: usearch } = await import('usearch');
      const idx = new usearch.Index({ metric: usearch.MetricKind.IP, dimensions: 4, connectivity: 8 } as never);
      idx.add(1n, new Float32Array([1, 0, 0, 0]));
      return `native index ok (size ${idx.size()})`;
    }),
  );
  if (args.queue.includes('gpu')) {
    checks.push(
      await check('node-llama-cpp', async () => {
        const { getLlama } = await import('node-llama-cpp');
        const llama = await getLlama({ gpu: 'auto', build: 'never' });
        const gpu = llama.gpu;
        await llama.dispose();
        return `prebuilt binary loads (gpu: ${gpu || 'none, CPU'})`;
      }),
    );
  }
  // What the config's stages need on this queue (API keys, endpoints, model files), as `phase5 worker` checks at start.
  if (args.config)
    for (const n of await checkWorkerNeeds(args.config, [args.queue])) checks.push({ name: n.what, ok: n.ok, detail: n.detail });
  return { queue: args.queue, host: os.hostname(), pid: process.pid, checks };
}
