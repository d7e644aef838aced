/**
 * One writer per output file, within a process and across processes and machines sharing a filesystem
 * (docs/cluster-files.md#one-writer-per-file).
 *
 * Within a process (a Temporal worker runs a retried attempt beside a stuck one) a set of open paths guards it.
 * Across processes a lock file `<file>.lock` holds the writer's `pid@host`; a successor takes it over when that
 * writer is gone: on the same host when its process no longer exists, from another host when the lock was not
 * refreshed for `staleMs` (a live writer refreshes it at its checkpoints).
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

const activeWriters = new Set<string>();

/** How long a lock held from another host stays valid without a refresh. */
export const DEFAULT_LOCK_STALE_MS = 10 * 60_000;

export interface WriterLock {
  release(): void;
  /** Marks the lock as held now (another host takes it over only after `staleMs` without this). */
  refresh(): void;
}

interface Holder {
  pid: number;
  host: string;
}

function holderOf(lock: string): Holder | null {
  try {
    const [pid, host] = readFileSync(lock, 'utf8').trim().split('@');
    return { pid: Number(pid), host: host ?? hostname() }; // a bare pid: a writer on this host
  } catch {
    return null; // removed meanwhile
  }
}

/** Whether the writer recorded in `lock` may still be writing. */
function holderAlive(lock: string, holder: Holder, staleMs: number): boolean {
  if (holder.host !== hostname()) {
    const st = statSync(lock, { throwIfNoEntry: false });
    return st !== undefined && Date.now() - st.mtimeMs < staleMs;
  }
  if (holder.pid === process.pid) return false; // this process holds no such writer (activeWriters says so)
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Takes the lock of `file` for `what` (named in the refusal), or throws in one line naming the holder. */
export function acquireFileLock(file: string, what: string, staleMs = DEFAULT_LOCK_STALE_MS): WriterLock {
  const key = path.resolve(file);
  if (activeWriters.has(key)) throw new Error(`${what} ${file} is being written by another writer in this process`);
  const lock = `${file}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, `${process.pid}@${hostname()}`);
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 1) throw err;
      const holder = holderOf(lock);
      if (holder && holderAlive(lock, holder, staleMs))
        throw new Error(`${what} ${file} is being written by process ${holder.pid}@${holder.host} (lock ${lock}); wait for it or stop it`);
      rmSync(lock, { force: true }); // stale: its writer is gone
    }
  }
  activeWriters.add(key);
  return {
    release() {
      activeWriters.delete(key);
      rmSync(lock, { force: true });
    },
    refresh() {
      const now = new Date();
      try {
        utimesSync(lock, now, now);
      } catch {
        // taken over meanwhile: the writer that took it is the one that counts
      }
    },
  };
}

/** One writer per partial vectors file. */
export function acquireWriterLock(vectorsPath: string): () => void {
  const lock = acquireFileLock(vectorsPath, 'partial vectors');
  return () => lock.release();
}
