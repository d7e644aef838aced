/**
 * The requests a batch set asked for, read back from its input files (checked against the manifest's sha256):
 * custom_id → the run, line and a digest of the body sent, which `--batch-in` matches answers against.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readJsonl } from '../../io/jsonl';
import { sha256File } from '../../util/hash';
import { replicateKey } from '../study/replicate-key';
import { UserInputError } from '../shared/types';
import type { BatchManifest } from './batch-manifest';
import { bodyDigest, type BatchInputLine } from './batch-request';
import { parseCustomId } from './custom-id';

export interface IssuedRequest {
  /** The run: `<arm>` or `<arm>#<r>`. */
  run: string;
  arm: string;
  replicate: number;
  dataset: string;
  sampleId: string;
  digest: string;
}

export async function readIssued(manifestFile: string, manifest: BatchManifest): Promise<Map<string, IssuedRequest>> {
  const dir = path.dirname(manifestFile);
  const issued = new Map<string, IssuedRequest>();
  for (const f of manifest.files) {
    const file = path.join(dir, f.file);
    if (!existsSync(file)) throw new UserInputError(`${file}: a batch input file the manifest names is missing`);
    if ((await sha256File(file)) !== f.sha256)
      throw new UserInputError(`${file}: changed since --batch-out wrote it (sha256 differs from ${manifestFile})`);
    for await (const { value, line } of readJsonl<BatchInputLine>(file)) {
      const id = parseCustomId(value.custom_id);
      if (!id) throw new UserInputError(`${file}:${line}: custom_id "${value.custom_id}" is not one --batch-out writes`);
      const run = replicateKey(id.arm, id.replicate);
      issued.set(value.custom_id, {
        run,
        arm: id.arm,
        replicate: id.replicate,
        dataset: id.dataset,
        sampleId: id.sampleId,
        digest: bodyDigest(value.body),
      });
    }
  }
  return issued;
}
