/**
 * Body of an embedding session worker (see session-pool.ts): owns one onnxruntime session, runs the
 * padded batches it is sent and answers with pooled vectors. onnxruntime-node's `run` blocks the
 * thread that calls it, so sessions live here and the main thread stays free to tokenize, pool
 * results, heartbeat and log.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { buildFeeds, poolHidden } from './feeds';
import type { HostInit, HostReply, HostRequest, TensorInfo } from './session-pool';

const init = workerData as HostInit;
const port = parentPort!;

function describe(m: readonly ort.InferenceSession.ValueMetadata[]): TensorInfo[] {
  return m.map((x) =>
    x.isTensor
      ? { name: x.name, isTensor: true, type: String(x.type), shape: x.shape.map((s) => (typeof s === 'number' ? s : String(s))) }
      : { name: x.name, isTensor: false, type: '', shape: [] },
  );
}

let session: ort.InferenceSession;
try {
  session = await ort.InferenceSession.create(init.modelFile, {
    intraOpNumThreads: init.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // On a GPU, operators the CUDA provider lacks run on the CPU provider.
    ...(init.device === 'cuda' ? { executionProviders: ['cuda', 'cpu'] } : {}),
  });
} catch (err) {
  port.postMessage({ type: 'failed', message: (err as Error).message } satisfies HostReply);
  process.exit(0);
}

port.postMessage({
  type: 'ready',
  inputNames: [...session.inputNames],
  outputNames: [...session.outputNames],
  inputs: describe(session.inputMetadata),
  outputs: describe(session.outputMetadata),
} satisfies HostReply);

port.on('message', async (req: HostRequest) => {
  if (req.type === 'close') {
    await session.release();
    port.postMessage({ type: 'closed' } satisfies HostReply);
    port.close();
    return;
  }
  try {
    const feeds = buildFeeds(req.ids, req.mask, req.n, req.L, session.inputNames, req.intType);
    const t0 = performance.now();
    const out = (await session.run(feeds, [req.output]))[req.output];
    const sessionMs = performance.now() - t0;
    const h = out.data as Float32Array;
    if (req.mode === 'raw') {
      port.postMessage({ type: 'result', id: req.id, sessionMs } satisfies HostReply);
    } else if (req.mode === 'hidden') {
      const data = h.slice();
      port.postMessage({ type: 'result', id: req.id, sessionMs, data, dims: [...out.dims] } satisfies HostReply, [
        data.buffer as ArrayBuffer,
      ]);
    } else {
      const data = poolHidden(h, req.n, req.L, req.mask, req.pooling, req.normalize, out.dims.length);
      port.postMessage({ type: 'result', id: req.id, sessionMs, data, dims: [req.n, data.length / req.n] } satisfies HostReply, [
        data.buffer as ArrayBuffer,
      ]);
    }
  } catch (err) {
    port.postMessage({ type: 'result', id: req.id, error: (err as Error).message } satisfies HostReply);
  }
});
