/** One writer per output file in a worker process: a newer attempt of an activity supersedes an older one. */
import { currentSignal } from './context';

const activeWriters = new Map<string, { controller: AbortController; done: Promise<unknown> }>();

/**
 * Run `fn` as the only writer of `key` (an output file) in this worker process. When Temporal starts a new
 * attempt while an older one is still running here (e.g. its heartbeats were lost while the server restarted),
 * the older attempt is aborted and awaited before the new one touches the file — two attempts never append to
 * the same file at once. The signal also fires when Temporal cancels the activity.
 */
export async function runExclusive<T>(key: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const prev = activeWriters.get(key);
  if (prev) {
    prev.controller.abort(new Error('superseded by a newer attempt of the same activity'));
    await prev.done.catch(() => undefined);
  }
  const controller = new AbortController();
  const cancel = currentSignal();
  const onCancel = () => controller.abort(cancel?.reason);
  cancel?.addEventListener('abort', onCancel, { once: true });
  const done = fn(controller.signal);
  const entry = { controller, done };
  activeWriters.set(key, entry);
  try {
    return await done;
  } finally {
    cancel?.removeEventListener('abort', onCancel);
    if (activeWriters.get(key) === entry) activeWriters.delete(key);
  }
}
