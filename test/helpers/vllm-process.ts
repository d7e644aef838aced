/**
 * Process plumbing for ./vllm-server.ts: a child's output kept (its tail), and its process group ended when the
 * mocha process exits (mocha runs with --exit; vLLM's API server starts its engine core as a child process in
 * the same group). At exit a detached shell sends the group SIGTERM and, when it is still there after 10 s,
 * SIGKILL, so a vLLM that hangs while shutting down is not left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const groups = new Set<number>();
let hooked = false;

function endGroups(): void {
  for (const pgid of groups) {
    const script = `kill -TERM -${pgid} 2>/dev/null || exit 0; for i in $(seq 20); do kill -0 -${pgid} 2>/dev/null || exit 0; sleep 0.5; done; kill -KILL -${pgid} 2>/dev/null`;
    try {
      spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
    } catch {
      process.kill(-pgid, 'SIGKILL');
    }
  }
  groups.clear();
}

/** End `child`'s process group (it was spawned `detached`) when this process exits or is interrupted. */
export function killGroupAtExit(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const pgid = child.pid;
  groups.add(pgid);
  if (hooked) return;
  hooked = true;
  process.once('exit', endGroups);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      endGroups();
      process.exit(130);
    });
  }
}

/** Keep the last `max` characters of `child`'s stdout and stderr together; returns a reader. */
export function keepTail(child: ChildProcess, max: number): () => string {
  let text = '';
  const add = (d: Buffer) => {
    text = (text + d.toString()).slice(-max);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => text;
}
