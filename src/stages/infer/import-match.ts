/**
 * What `phase5 infer --import` checks beside the record schema: every line names a line of the arm's export
 * (its `sample_id`, with the same `dataset` and the same OCR text, compared in NFC), so no imported correction is
 * silently left out of the analysis; and a line without `prompt_type` / `prompt_version` gets the arm's — the arm
 * defines its prompt (a RAG arm's line without retrieved context is `zero_shot_fallback`, as the runner records it).
 */
import { isBuiltin } from '../../prompts/templates';
import { existsSync } from 'node:fs';
import { readJsonl } from '../../io/jsonl';
import type { CorrectionRecord } from '../../llm/records';
import type { ValidateHooks } from '../../llm/record-files';
import { RAG_PROMPT_VERSION, ZERO_SHOT_PROMPT_VERSION } from '../../prompts/builder';
import type { ArmRun } from '../study/arms';

/** The export's lines by sample_id (ids may repeat across datasets). */
export type ExportLines = Map<string, { dataset: string; ocr: string; hasContext: boolean }[]>;

/** The arm's export, or null when it has none yet (an arm imported before its export). */
export async function readExportLines(file: string): Promise<ExportLines | null> {
  if (!existsSync(file)) return null;
  const lines: ExportLines = new Map();
  for await (const { value } of readJsonl(file)) {
    const r = value as { sample_id: string; dataset: string; ocr_text: string; retrieval_context?: string | null; prompt_type?: string };
    const hasContext = r.prompt_type !== 'zero_shot_fallback' && !!r.retrieval_context?.trim();
    const list = lines.get(r.sample_id) ?? [];
    list.push({ dataset: r.dataset, ocr: r.ocr_text.normalize('NFC'), hasContext });
    lines.set(r.sample_id, list);
  }
  return lines;
}

/** The prompt a line of this arm was corrected with, as the runner records it. */
function armPrompt(arm: ArmRun, line: { hasContext: boolean } | undefined): { prompt_type: string; prompt_version: string } {
  // A declared template's version throughout (its fallback keeps it); a built-in's, with v1 for the fallback.
  const t = arm.template;
  const declared = t && !isBuiltin(t) ? t.version : null;
  if (arm.prompt === 'zero_shot') return { prompt_type: 'zero_shot', prompt_version: declared ?? ZERO_SHOT_PROMPT_VERSION };
  if (line && !line.hasContext) return { prompt_type: 'zero_shot_fallback', prompt_version: declared ?? ZERO_SHOT_PROMPT_VERSION };
  return { prompt_type: 'rag', prompt_version: declared ?? t?.version ?? RAG_PROMPT_VERSION };
}

/** Validation hooks for an import into `arm`: the arm's prompt for lines without one, every line matched to the export. */
export function importHooks(arm: ArmRun, exported: ExportLines | null): ValidateHooks {
  return {
    fill(value) {
      const set: string[] = [];
      const id = typeof value.sample_id === 'string' ? value.sample_id : '';
      const line = exported?.get(id)?.find((l) => l.dataset === value.dataset) ?? exported?.get(id)?.[0];
      const prompt = armPrompt(arm, line);
      for (const k of ['prompt_type', 'prompt_version'] as const) {
        if (value[k] === undefined || value[k] === null) {
          value[k] = prompt[k];
          set.push(k);
        }
      }
      return set;
    },
    check(rec: CorrectionRecord) {
      if (!exported) return null;
      const lines = exported.get(rec.sample_id);
      if (!lines)
        return {
          kind: `name a sample_id not in arm ${arm.name}'s export`,
          detail: `"${rec.sample_id}"`,
          message: `sample_id "${rec.sample_id}" is not in arm ${arm.name}'s export`,
        };
      const line = lines.find((l) => l.dataset === rec.dataset);
      if (!line)
        return {
          kind: 'have a dataset that disagrees with the export',
          detail: `"${rec.sample_id}" is in ${lines.map((l) => l.dataset).join(', ')}, not ${rec.dataset}`,
          message: `dataset ${rec.dataset} disagrees with the export`,
        };
      if (line.ocr !== rec.ocr_text.normalize('NFC'))
        return {
          kind: 'have an ocr_text that disagrees with the export',
          detail: `"${rec.sample_id}"`,
          message: `ocr_text of "${rec.sample_id}" disagrees with the export`,
        };
      return null;
    },
  };
}

/** What to do about each kind of rejected line. */
export function importFix(kind: string): string | undefined {
  if (kind.startsWith('lack ')) return `add ${kind.includes(' and ') ? 'them' : 'it'}`;
  if (kind.startsWith('name a sample_id')) return 'check --arm, or export first';
  if (kind.includes('disagrees with the export')) return 'made from another export?';
  if (kind === 'repeat a sample_id') return 'keep one line per sample_id';
  return undefined;
}
