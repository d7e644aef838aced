/**
 * A synthetic study-arms tree of any size for bench/report-size.ts's analysis timing: `<root>/arms/<arm>/`
 * (arm.json, corrections.jsonl; the rag arms share one inference_input.jsonl through symlinks, as arms with
 * the same retrieval share an export) holding N lines — the OCR_GS lines repeated, each further copy with
 * `~<copy>` after the sample_id — × `armCount` arms, their outputs as bench/synthetic-lines.ts makes them.
 */
import { createWriteStream, mkdirSync, symlinkSync, writeFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { ocrGsDatasets } from '../test/helpers/ocr-gs-study';
import { armOutput, retrievalOf } from './synthetic-lines';
import { syntheticCorrection } from './synthetic-record';

const write = async (out: WriteStream, line: string): Promise<void> => {
  if (!out.write(line)) await once(out, 'drain');
};
const close = (out: WriteStream) => new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));

/** Write the tree; returns the arm names (the first, `zero_shot`, is the baseline). */
export async function writeSyntheticArms(root: string, ocrGsRoot: string, n: number, armCount: number): Promise<string[]> {
  const datasets = Object.entries(ocrGsDatasets(ocrGsRoot));
  const pool = datasets.flatMap(([, pairs]) => pairs);
  const names = Array.from({ length: armCount }, (_, k) => (k === 0 ? 'zero_shot' : `rag_${k}`));
  const dirs = names.map((name) => path.join(root, 'arms', name));
  for (const [k, dir] of dirs.entries()) {
    mkdirSync(dir, { recursive: true });
    const rag = k > 0;
    const info = {
      name: names[k],
      prompt: rag ? 'rag' : 'zero_shot',
      retrieval: { mode: rag ? 'dense' : 'none', top_k: rag ? 3 : 0, fingerprint: 'fp-dense-3' },
      upper_bound: false,
      model: 'bench/none',
      guard: null,
    };
    writeFileSync(path.join(dir, 'arm.json'), JSON.stringify(info));
  }
  const outs = dirs.map((dir) => createWriteStream(path.join(dir, 'corrections.jsonl')));
  const exportDir = path.join(root, 'exports', 'fp-dense-3');
  mkdirSync(exportDir, { recursive: true });
  const input = createWriteStream(path.join(exportDir, 'inference_input.jsonl'));
  let g = 0;
  for (let copy = 0; g < n; copy++) {
    for (const [ds, pairs] of datasets) {
      for (let i = 0; i < pairs.length && g < n; i++, g++) {
        const p = { ...pairs[i], id: copy === 0 ? pairs[i].id : `${pairs[i].id}~${copy}` };
        const base = { sample_id: p.id, dataset: ds, ocr_text: p.ocr, gt_text: p.gt };
        await write(
          input,
          JSON.stringify({ ...base, prompt_type: 'rag', prompt_version: 'synthetic', retrieved_k: 3, ...retrievalOf(pool, i, g, 1) }) +
            '\n',
        );
        for (const [k, out] of outs.entries()) {
          const text = armOutput(p, g, k);
          const rec = syntheticCorrection(base, text, { prompt: k === 0 ? 'zero_shot' : 'rag' });
          await write(out, JSON.stringify(rec) + '\n');
        }
      }
    }
  }
  await Promise.all([...outs, input].map(close));
  for (const dir of dirs.slice(1)) symlinkSync(path.join(exportDir, 'inference_input.jsonl'), path.join(dir, 'inference_input.jsonl'));
  return names;
}
