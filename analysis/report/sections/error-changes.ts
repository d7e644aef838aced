/** The report's error-change section: characters fixed and introduced, by edit type, category and confusion. */
import { confusionLabel, type ReportDocs } from '../../charts/specs';
import { ERROR_CATEGORIES } from '../../score/error-changes';
import { dash, pctF, type Block } from '../blocks';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const netF = (x: number) => (x > 0 ? `+${x}` : x < 0 ? `−${-x}` : '±0');

export function errorChangeBlocks(d: ReportDocs): Block[] {
  const heading: Block = { kind: 'h2', text: 'Error changes (character alignment, all datasets)' };
  const ec = d.errorChanges;
  if (!ec) return [heading, { kind: 'p', text: 'Error analysis was not run (--no-error-analysis).' }];
  const t5 = ec.phase5.totals;
  const t2 = ec.phase2?.totals;
  return [
    heading,
    {
      kind: 'p',
      text:
        `rag fixed ${t5.fixed} of ${t5.ocr_errors} OCR character errors (${pctF(t5.fix_rate, 1)}) and introduced ${t5.introduced} (net ${netF(t5.net_error_change)}).` +
        (t2
          ? ` zero_shot fixed ${t2.fixed} (${pctF(t2.fix_rate, 1)}) and introduced ${t2.introduced} (net ${netF(t2.net_error_change)}).`
          : ''),
    },
    errorTypeTable(ec),
    {
      kind: 'list',
      items: [
        `Top fixed (gold → OCR): ${topConfusions(ec, 'fixed')}`,
        `Top introduced (gold → output): ${topConfusions(ec, 'introduced')}`,
      ],
    },
  ];
}

/** Errors by edit type, then by category (categories without errors left out). */
function errorTypeTable(ec: Json): Block {
  const typeRow = (label: string, x: Json, y: Json | undefined) => [
    label,
    String(x.ocr_errors),
    String(x.fixed),
    String(x.introduced),
    String(x.unchanged),
    pctF(x.fix_rate, 1),
    y ? String(y.fixed) : dash,
    y ? String(y.introduced) : dash,
  ];
  return {
    kind: 'table',
    head: [
      'Edit type / category',
      'OCR errors',
      'rag fixed',
      'rag introduced',
      'rag unchanged',
      'rag fix rate',
      'zero_shot fixed',
      'zero_shot introduced',
    ],
    rows: [
      ...Object.keys(ec.phase5.by_edit_type).map((k) => typeRow(k, ec.phase5.by_edit_type[k], ec.phase2?.by_edit_type?.[k])),
      ...ERROR_CATEGORIES.filter((k) => ec.phase5.by_category[k].ocr_errors + ec.phase5.by_category[k].introduced > 0).map((k) =>
        typeRow(`· ${k}`, ec.phase5.by_category[k], ec.phase2?.by_category?.[k]),
      ),
    ],
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  };
}

function topConfusions(ec: Json, kind: 'fixed' | 'introduced'): string {
  return (
    (ec.phase5.top_confusions?.[kind] ?? [])
      .slice(0, 10)
      .map((x: Json) => `${confusionLabel(x.ref, x.hyp)} (${x.type}, ${x.category}): ${x.count}`)
      .join('; ') || dash
  );
}
