/**
 * The encoder's ONNX sessions: how many run in parallel and with how many threads each, and opening them on
 * the configured device (CUDA falling back to the CPU with one warning; docs/real-study.md#gpu-embedding).
 */
import { childLogger } from '../util/log';
import { cudaUnavailableReason, type EmbeddingDevice } from './device';
import { ModelDirError } from './model-dir';
import { SessionLoadError, SessionPool } from './session-pool';

const log = childLogger('embed');

/** Larger models get one multi-threaded session rather than a copy per thread. */
const AUTO_PARALLEL_MAX_BYTES = 400e6;

/** How many parallel sessions, and how many threads each, for `threads` threads in all. */
export function sessionLayout(
  threads: number,
  sessions: number | 'auto',
  modelBytes: number,
): { sessions: number; threadsPerSession: number } {
  const n = sessions === 'auto' ? (modelBytes <= AUTO_PARALLEL_MAX_BYTES ? threads : 1) : Math.min(sessions, threads);
  return { sessions: n, threadsPerSession: Math.max(1, Math.floor(threads / n)) };
}

/**
 * The sessions for `device`: on 'cuda' one GPU session (it batches internally; CPU threads only feed it),
 * falling back to the CPU layout with one warning when the CUDA provider is missing or cannot start.
 */
export async function openSessions(
  modelFile: string,
  device: EmbeddingDevice,
  threads: number,
  cpuLayout: { sessions: number; threadsPerSession: number },
): Promise<SessionPool> {
  if (device === 'cuda') {
    let why = cudaUnavailableReason();
    if (why === null) {
      try {
        return await SessionPool.open(modelFile, 1, threads, 'cuda');
      } catch (err) {
        if (!(err instanceof SessionLoadError)) throw err;
        why = `the CUDA execution provider did not start (${err.message.split('\n')[0]})`;
      }
    }
    log.warn(
      { device, fallback: 'cpu', reason: why },
      `embedding: rag.embedding.device is "cuda" but ${why} — embedding on the CPU instead (README: GPU embedding)`,
    );
  }
  try {
    return await SessionPool.open(modelFile, cpuLayout.sessions, cpuLayout.threadsPerSession, 'cpu');
  } catch (err) {
    if (!(err instanceof SessionLoadError)) throw err;
    const hint = /Protobuf parsing failed/i.test(err.message)
      ? ' — the file is not a valid ONNX model (corrupt or truncated download?)'
      : '';
    throw new ModelDirError(`cannot load ONNX model ${modelFile}: ${err.message}${hint}`);
  }
}
