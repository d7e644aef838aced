/** One writer per partial vectors file, within a process and across processes. */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

// Two writers appending to one partial file would interleave rows. Within a process (a Temporal worker
// runs a retried attempt beside a stuck one) a set of open paths guards it; across processes a lock file
// holding the writer's pid, taken over when that process is gone.
const activeWriters = new Set<string>();

export function acquireWriterLock(vectorsPath: string): () => void {
  const key = path.resolve(vectorsPath);
  if (activeWriters.has(key)) throw new Error(`partial vectors ${vectorsPath} are being written by another build in this process`);
  const lock = `${vectorsPath}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const pid = Number(readFileSync(lock, 'utf8'));
      let alive = false;
      try {
        process.kill(pid, 0);
        alive = pid !== process.pid;
      } catch {
        alive = false;
      }
      if (alive)
        throw new Error(`partial vectors ${vectorsPath} are being written by process ${pid} (lock ${lock}); wait for it or stop it`);
      rmSync(lock, { force: true }); // stale: its writer died
    }
  }
  activeWriters.add(key);
  return () => {
    activeWriters.delete(key);
    rmSync(lock, { force: true });
  };
}
