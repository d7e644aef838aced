/**
 * What an arm's context held per line, from its own inference_input.jsonl (docs/outputs.md#inference_inputjsonl):
 * the top-1 retrieval score, whether a hit holds the gold passage, and the strongest hit class
 * (src/witness/provenance.ts) — the recorded fields, as export wrote them. An arm whose prompt shows no
 * retrieved sentences has none of these.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readJsonl } from '../../src/io/jsonl';
import { lineKey } from '../inputs/records';

export interface LineContext {
  top_score: number | null;
  gold_in_context: boolean | null;
  hit_provenance: string | null;
}

/** Strongest first (src/witness/provenance.ts's order); a record with no hits is `no_context`. */
const ORDER = ['same_passage', 'same_work', 'other_work', 'unknown_work'];

interface InputRecord {
  dataset?: string;
  sample_id?: string;
  retrieval_scores?: number[] | null;
  retrieval_sources?: { provenance?: string }[] | null;
  gold_in_context?: boolean;
}

function strongest(sources: InputRecord['retrieval_sources']): string | null {
  if (!sources || sources.length === 0) return 'no_context';
  const known = sources.map((s) => s.provenance).filter((p): p is string => typeof p === 'string');
  if (known.length === 0) return null;
  return known.reduce((b, p) => ((ORDER.indexOf(p) + 1 || 99) < (ORDER.indexOf(b) + 1 || 99) ? p : b));
}

/** dataset + "\0" + sample_id → the line's context, for the arm in `armDir`; cached per real file. */
export async function lineContexts(armDir: string, cache: Map<string, Map<string, LineContext>>): Promise<Map<string, LineContext>> {
  const file = path.join(armDir, 'inference_input.jsonl');
  if (!existsSync(file)) return new Map();
  const real = realpathSync(file);
  const hit = cache.get(real);
  if (hit) return hit;
  const out = new Map<string, LineContext>();
  for await (const { value } of readJsonl<InputRecord>(real)) {
    if (value.dataset === undefined || value.sample_id === undefined) continue;
    const top = value.retrieval_scores?.[0];
    out.set(lineKey(value.dataset, value.sample_id), {
      top_score: typeof top === 'number' ? top : null,
      gold_in_context: typeof value.gold_in_context === 'boolean' ? value.gold_in_context : null,
      hit_provenance: strongest(value.retrieval_sources),
    });
  }
  cache.set(real, out);
  return out;
}
