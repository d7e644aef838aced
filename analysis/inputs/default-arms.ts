/**
 * The default arms of a config without `study:` — `rag` (the RAG prompt over the export's dense retrieval) and
 * `zero_shot` (no context) — as the arms analysis reads them: their folders under `<results>/arms/` hold no
 * arm.json, so their settings come from the config (docs/outputs.md#layout). Their `retrieval.fingerprint` is null:
 * it hashes the index manifest, build time included, so it would make two runs' arms.json differ; the export they
 * read is the folder their inference_input.jsonl links to (`exportFingerprint`), whose retrieval_stats.json
 * gives the rag arm's verbatim-gold counts.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ArmInfo } from './arm-types';

/** What the config says of the default arms (`retrieval.top_k`, the model); `zero_shot` is their baseline. */
export interface DefaultArms {
  topK: number | null;
  model: string | null;
}

/** The settings of a default arm's folder; null for a folder of another name. */
export function defaultArmInfo(name: string, dir: string, d: DefaultArms): ArmInfo | null {
  if (name !== 'rag' && name !== 'zero_shot') return null;
  return {
    name,
    prompt: name,
    retrieval: name === 'rag' ? { mode: 'dense', top_k: d.topK, fingerprint: null, k_group: null } : null,
    upper_bound: false,
    model: d.model,
    guard: null,
    replicates: 1,
    prompt_prefix_share: null,
  };
}

/** The export folder's name the arm's inference_input.jsonl links to; null when it is a plain file or absent. */
export function exportFingerprint(dir: string): string | null {
  const file = path.join(dir, 'inference_input.jsonl');
  if (!existsSync(file)) return null;
  const real = path.dirname(realpathSync(file));
  return path.basename(path.dirname(real)) === 'exports' ? path.basename(real) : null;
}
