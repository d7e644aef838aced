/**
 * A witness index cut by work into shards (`retrieval.witness.shards`, docs/witness-shards.md). The works, in the
 * order one index would hold them, are split into contiguous groups of about equal file size; each group is an
 * ordinary index directory `<dir>/shard-NN/` whose offsets are its own (32-bit, checked) and whose frame says where
 * it sits in the whole text: `base` (key offset of its first unit), `lineBase`, `workBase` — JS numbers, exact to
 * 2^53. Every shard samples the positions and uses the hash table size one index over all works would, and
 * `<dir>/counts.u32` holds that index's postings per bucket, so a search merged over the shards sees the
 * candidates one index sees (src/witness/sharded-search.ts).
 *
 * Built in two passes so one shard is in memory at a time: the layouts (reading the works), then — with the
 * table size of the whole text known — each shard's postings.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultTableBits, DEFAULT_WITNESS_PARAMS, type WitnessParams } from './build';
import { buildWitnessDir, readArray, readWitnessManifest, WITNESS_MANIFEST, type WitnessManifest } from './files';
import { writePostingsFile } from './postings-file';
import type { WorkFile } from './works';

export interface ShardFrame {
  dir: string;
  base: number;
  lineBase: number;
  workBase: number;
  works: number;
  lines: number;
  key_chars: number;
}

export interface ShardedManifest {
  version: 1;
  fingerprint: string;
  params: WitnessParams;
  shards: ShardFrame[];
  works: number;
  lines: number;
  key_chars: number;
  postings: number;
  missing: string[];
}

export const COUNTS_FILE = 'counts.u32';

/** The ordered work files cut into `n` contiguous groups of about equal total size (no group empty). */
export function cutByWork(files: readonly WorkFile[], n: number): WorkFile[][] {
  const sizes = files.map((f) => statSync(f.file, { throwIfNoEntry: false })?.size ?? 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  const groups: WorkFile[][] = [];
  let acc = 0;
  let cur: WorkFile[] = [];
  files.forEach((f, i) => {
    cur.push(f);
    acc += sizes[i];
    const left = files.length - i - 1;
    const want = n - groups.length - 1; // groups still to fill after this one
    if (want > 0 && left >= want && (acc >= (total * (groups.length + 1)) / n || left === want)) {
      groups.push(cur);
      cur = [];
    }
  });
  if (cur.length) groups.push(cur);
  return groups;
}

const shardName = (i: number) => `shard-${String(i).padStart(2, '0')}`;

/** Build `files` as `shards` shard indexes under `dir` (replacing it). */
export async function buildWitnessShards(o: {
  files: readonly WorkFile[];
  dir: string;
  fingerprint: string;
  shards: number;
  missing?: string[];
  params?: Partial<Pick<WitnessParams, 'n' | 'stride'>>;
  onWork?: (done: number, total: number) => void;
}): Promise<ShardedManifest> {
  const tmp = `${o.dir}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const n = o.params?.n ?? DEFAULT_WITNESS_PARAMS.n;
  const stride = o.params?.stride ?? DEFAULT_WITNESS_PARAMS.stride;
  const groups = cutByWork(o.files, Math.max(1, Math.min(o.shards, o.files.length)));
  // Pass 1: each shard's layout (postings are left for pass 2: a stride past any text samples none).
  const frames: ShardFrame[] = [];
  let done = 0;
  let base = 0;
  let lineBase = 0;
  let workBase = 0;
  for (const [i, group] of groups.entries()) {
    if (i > 0) base += 1; // the work separator one index puts before this shard's first work
    const m = await buildWitnessDir({
      files: group,
      dir: path.join(tmp, shardName(i)),
      fingerprint: o.fingerprint,
      params: { n, stride: Number.MAX_SAFE_INTEGER, tableBits: 16 },
      onWork: () => o.onWork?.(++done, o.files.length),
    });
    frames.push({ dir: shardName(i), base, lineBase, workBase, works: m.works.length, lines: m.lines, key_chars: m.key_chars });
    base += m.key_chars;
    lineBase += m.lines;
    workBase += m.works.length;
  }
  // Pass 2: postings with the table size and sampling of one index over the whole text.
  const params: WitnessParams = { n, stride, tableBits: defaultTableBits(base, stride) };
  const counts = new Uint32Array(1 << params.tableBits);
  let postings = 0;
  for (const f of frames) {
    const dir = path.join(tmp, f.dir);
    // The text read in place (no copy) and the postings written range by range: the shard's peak memory is its
    // text, the bucket offsets and one range (./postings-file.ts).
    const p = writePostingsFile(readArray(path.join(dir, 'text.u16'), Uint16Array), params, f.base, path.join(dir, 'postings.u32'));
    for (let h = 0; h < counts.length; h++) counts[h] += p.bucketStart[h + 1] - p.bucketStart[h];
    writeFileSync(path.join(dir, 'buckets.u32'), new Uint8Array(p.bucketStart.buffer));
    const manifest = readWitnessManifest(dir) as WitnessManifest;
    writeFileSync(path.join(dir, WITNESS_MANIFEST), `${JSON.stringify({ ...manifest, params, postings: p.postings }, null, 1)}\n`);
    postings += p.postings;
  }
  writeFileSync(path.join(tmp, COUNTS_FILE), new Uint8Array(counts.buffer));
  const manifest: ShardedManifest = {
    version: 1,
    fingerprint: o.fingerprint,
    params,
    shards: frames,
    works: workBase,
    lines: lineBase,
    key_chars: base,
    postings,
    missing: o.missing ?? [],
  };
  writeFileSync(path.join(tmp, WITNESS_MANIFEST), `${JSON.stringify(manifest, null, 1)}\n`);
  rmSync(o.dir, { recursive: true, force: true });
  renameSync(tmp, o.dir);
  return manifest;
}

/** The manifest of a sharded index directory, or null for one index (or none). */
export function readShardedManifest(dir: string): ShardedManifest | null {
  const m = readWitnessManifest(dir) as (WitnessManifest & Partial<ShardedManifest>) | null;
  return m && Array.isArray(m.shards) ? (m as unknown as ShardedManifest) : null;
}

/** The whole index's postings per bucket. */
export function readCounts(dir: string): Uint32Array {
  const buf = readFileSync(path.join(dir, COUNTS_FILE));
  return new Uint32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}
