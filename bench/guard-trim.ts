/**
 * What trimming and the over-correction guard (src/llm/guard.ts) do to known answers on every OCR_GS line:
 * the gold line itself (must stay as it is), gold + the first three words of the next line, gold + the whole
 * next line, the gold line twice (continuations the trimming should undo), and the OCR line (identity).
 * Prints, per scenario, the CER against the gold line of the answer as given, after trimming, and after the
 * guard with its defaults, and the guard's decisions. This is where `SPAN_MIN_SAVING` was chosen.
 *
 *   SHARED_DATA=/path/to/shared/data npx tsx bench/guard-trim.ts
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { applyGuard, GUARD_DEFAULTS, trimOutput } from '../src/llm/guard';
import { ErrorRateAccumulator, scorePair } from '../src/text/distance';
import { OCR_GS_ROOT } from '../test/helpers/shared-data';

interface Line { gt: string; ocr: string; next: string }

function loadLines(root: string): Line[] {
  const out: Line[] = [];
  for (const book of readdirSync(root).sort()) {
    const files = readdirSync(path.join(root, book)).filter((f) => f.endsWith('.gt.txt')).sort();
    const gts = files.map((f) => readFileSync(path.join(root, book, f), 'utf8').trim());
    files.forEach((f, i) => {
      const ocr = readFileSync(path.join(root, book, f.replace('.gt.txt', '.png.rec.txt')), 'utf8');
      out.push({ gt: gts[i], ocr, next: gts[(i + 1) % gts.length] });
    });
  }
  return out;
}

const SCENARIOS: Record<string, (l: Line) => string> = {
  gold: (l) => l.gt,
  'gold + 3 words': (l) => `${l.gt} ${l.next.split(' ').slice(0, 3).join(' ')}`,
  'gold + next line': (l) => `${l.gt}\n${l.next}`,
  'gold twice': (l) => `${l.gt} ${l.gt}`,
  identity: (l) => l.ocr,
};

function main(): void {
  if (!existsSync(OCR_GS_ROOT)) throw new Error(`no OCR_GS data at ${OCR_GS_ROOT} (set SHARED_DATA)`);
  const lines = loadLines(OCR_GS_ROOT);
  const settings = { ...GUARD_DEFAULTS, enabled: true };
  console.log(`${lines.length} OCR_GS lines; guard ${JSON.stringify(settings)}\n`);
  console.log('| scenario | CER as given | CER trimmed | lines trimmed | CER guarded | decisions |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const [name, answer] of Object.entries(SCENARIOS)) {
    const given = new ErrorRateAccumulator();
    const trimmed = new ErrorRateAccumulator();
    const guarded = new ErrorRateAccumulator();
    const decisions: Record<string, number> = {};
    let cut = 0;
    for (const l of lines) {
      const raw = answer(l);
      const t = trimOutput(raw, l.ocr);
      const g = applyGuard(raw, l.ocr, settings);
      given.add(scorePair(l.gt, raw));
      trimmed.add(scorePair(l.gt, t.text));
      guarded.add(scorePair(l.gt, g.corrected_text));
      if (t.trimmed) cut++;
      decisions[g.guard] = (decisions[g.guard] ?? 0) + 1;
    }
    const pct = (a: ErrorRateAccumulator) => `${((a.cer.rate ?? 0) * 100).toFixed(2)} %`;
    const ds = Object.entries(decisions).sort((a, b) => b[1] - a[1]).map(([d, n]) => `${d} ${n}`).join(', ');
    console.log(`| ${name} | ${pct(given)} | ${pct(trimmed)} | ${cut} | ${pct(guarded)} | ${ds} |`);
  }
}

main();
