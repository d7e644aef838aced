/**
 * The report's "Normalisation profiles" tables: the figures of analysis/documents/profiles-block.ts (metrics.json `profiles`)
 * and analysis/study/profiles.ts (arms.json `profiles`) side by side, one column group per profile, each profile
 * named with its rules under the table. The primary profile is marked; its figures are the headline ones.
 */
import { dash, pctF, ppF, type Block } from '../blocks';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const name = (p: Json) => (p.primary ? `${p.profile} (primary)` : p.profile);
const rulesText = (profiles: Json[]) => profiles.map((p) => `${name(p)}: ${p.rules}`).join(' · ');

/** Per profile: OCR, rag and zero_shot CER and WER, all lines pooled (aggregate metrics.json). */
export function profileBlocks(metrics: Json): Block[] {
  const profiles: Json[] = metrics?.profiles ?? [];
  if (!profiles.length) return [];
  return [
    { kind: 'h2', text: 'Normalisation profiles' },
    {
      kind: 'table',
      head: ['Profile', 'OCR CER', 'rag CER', 'zero_shot CER (paired)', 'ΔCER rag − zero_shot (paired)', 'OCR WER', 'rag WER'],
      rows: profiles.map((p) => [
        name(p),
        pctF(p.ocr_baseline?.cer),
        pctF(p.corrected?.cer),
        p.paired ? pctF(p.paired.phase2_baseline?.cer) : dash,
        p.paired ? ppF(p.paired.delta_cer) : dash,
        pctF(p.ocr_baseline?.wer),
        pctF(p.corrected?.wer),
      ]),
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
    },
    {
      kind: 'p',
      text: `Every text is compared in canonical form (Unicode NFC, whitespace trimmed and collapsed). Rules: ${rulesText(profiles)}.`,
    },
  ];
}

/** Per arm and profile: CER and ΔCER vs the baseline arm (arms.json `profiles`). */
export function armProfileBlocks(arms: Json): Block[] {
  const profiles: Json[] = arms?.profiles ?? [];
  if (!profiles.length) return [];
  const armNames: string[] = profiles[0].arms.map((r: Json) => r.arm);
  return [
    { kind: 'h3', text: 'CER and ΔCER vs the baseline arm per normalisation profile' },
    {
      kind: 'table',
      head: ['Arm', ...profiles.flatMap((p) => [`CER ${name(p)}`, `ΔCER ${p.profile}`])],
      rows: armNames.map((arm, i) => [
        arm,
        ...profiles.flatMap((p) => {
          const r = p.arms[i];
          return [
            pctF(r?.cer),
            r?.delta_cer_vs_baseline === null || r?.delta_cer_vs_baseline === undefined ? dash : ppF(r.delta_cer_vs_baseline),
          ];
        }),
      ]),
      align: ['l', ...profiles.flatMap((): Array<'r'> => ['r', 'r'])],
    },
    { kind: 'p', text: `Point estimates; CIs and tests use the primary profile. Rules: ${rulesText(profiles)}.` },
  ];
}
