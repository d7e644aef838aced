/**
 * Before the CLI shows a finished run's result, it checks that the files the run reports are still the files it
 * wrote: every `{ path, sha256 }` in the result (an export's inference_input.jsonl, each shared export of a
 * study, each arm's corrections.jsonl, the analysis documents and report) is hashed again. A file since
 * replaced or removed makes the command run again rather than point at records the run did not write
 * (docs/cluster-files.md#attaching-to-a-finished-run).
 */
import { existsSync } from 'node:fs';
import { sha256File } from '../../src/util/hash';
import type { WrittenFile } from '../../src/stages/shared/written-file';

const SHA256 = /^[0-9a-f]{64}$/;

/** Every `{ path, sha256 }` pair anywhere in a workflow's result. */
export function writtenFiles(result: unknown): WrittenFile[] {
  const found = new Map<string, WrittenFile>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.path === 'string' && typeof o.sha256 === 'string' && SHA256.test(o.sha256))
        found.set(o.path, { path: o.path, sha256: o.sha256 });
      Object.values(o).forEach(walk);
    }
  };
  walk(result);
  return [...found.values()];
}

/** The first file of the result that is no longer what the run wrote, in words; null when all are. */
export async function replacedFile(result: unknown): Promise<string | null> {
  for (const f of writtenFiles(result)) {
    if (!existsSync(f.path)) return `${f.path} is gone`;
    const now = await sha256File(f.path);
    if (now !== f.sha256) return `${f.path} is not the file it wrote (sha256 ${f.sha256.slice(0, 12)}…, now ${now.slice(0, 12)}…)`;
  }
  return null;
}
