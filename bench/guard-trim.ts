/**
 * What trimming and the over-correction guard (src/llm/guard.ts) do to known answers on OCR_GS lines: the gold
 * line itself (must stay as it is), gold + the first three words of the next line, gold + the whole next line,
 * the gold line twice (continuations the trimming should undo), the OCR line (identity), and two answers the
 * guard should reject: the next line's gold (a wrong line) and the first half of the gold line (a truncation).
 * Prints, per scenario, the CER against the gold line of the answer as given, after trimming, and after the
 * guard, and the guard's decisions. All CERs are in canonical form (NFC; src/text/canonical.ts).
 *
 * `--split dev` chooses the trimming constant (`SPAN_MIN_SAVING`) and the guard thresholds (`max_edit_ratio`,
 * `length_ratio`) on the declared dev split and reports the chosen and the current values on the held-out rest:
 *   DEV SPLIT = every OCR_GS line whose position in its book (files in name order, from 0) is a multiple of 5
 *   (1,020 of 5,092 lines, a fifth of every book); the rest (4,072 lines) is held out.
 * Criteria, on the dev lines only (a correct answer is far more common than a run-on or a wrong one, so harm
 * to the gold answer is capped rather than averaged with the others):
 *   - SPAN_MIN_SAVING: the lowest mean trimmed CER of the three continuation scenarios, provided trimming the gold
 *     answer costs at most GOLD_TRIM_CAP (0.2 %) CER;
 *   - max_edit_ratio, length_ratio: the lowest mean guarded CER of the wrong-line and half-line answers, provided
 *     the gold answer falls back on at most GOLD_FALLBACK_CAP (1 %) of the lines; ties go to the current values.
 *
 *   SHARED_DATA=/path/to/shared/data npx tsx bench/guard-trim.ts [--split dev]
 */
import { existsSync } from 'node:fs';
import { fallbackReason, GUARD_DEFAULTS, SPAN_MIN_SAVING, trimOutput, type GuardSettings } from '../src/llm/guard';
import { ErrorRateAccumulator, scorePair } from '../src/text/distance';
import { OCR_GS_ROOT } from '../test/helpers/shared-data';
import { loadOcrGsLines, type OcrGsLine } from '../test/helpers/ocr-gs-lines';
import { isDevLine } from './dev-split';

interface Line {
  gt: string;
  ocr: string;
  next: string;
  index: number;
}

export { isDevLine };

/** Each line with the gold text of the next line of its book (the last line's: the book's first). */
function withNext(all: OcrGsLine[]): Line[] {
  const books = new Map<string, OcrGsLine[]>();
  for (const l of all) books.set(l.book, [...(books.get(l.book) ?? []), l]);
  return all.map((l) => {
    const book = books.get(l.book)!;
    return { gt: l.gt.trim(), ocr: l.ocr, next: book[(l.index + 1) % book.length].gt.trim(), index: l.index };
  });
}

const SCENARIOS: Record<string, (l: Line) => string> = {
  gold: (l) => l.gt,
  'gold + 3 words': (l) => `${l.gt} ${l.next.split(' ').slice(0, 3).join(' ')}`,
  'gold + next line': (l) => `${l.gt}\n${l.next}`,
  'gold twice': (l) => `${l.gt} ${l.gt}`,
  identity: (l) => l.ocr,
  'wrong line': (l) => l.next,
  'first half': (l) =>
    Array.from(l.gt)
      .slice(0, Math.ceil(Array.from(l.gt).length / 2))
      .join(''),
};

const pct = (a: ErrorRateAccumulator) => `${((a.cer.rate ?? 0) * 100).toFixed(2)} %`;

/** The per-scenario table: CER as given, trimmed, guarded, and the decisions. */
function table(lines: Line[], settings: GuardSettings, spanMinSaving: number): void {
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
      const t = trimOutput(raw, l.ocr, spanMinSaving);
      const reason = fallbackReason(t.text, l.ocr, settings);
      const g = reason
        ? { corrected_text: l.ocr, guard: `fell_back:${reason}` }
        : { corrected_text: t.text, guard: t.trimmed ? 'trimmed' : 'kept' };
      given.add(scorePair(l.gt, raw));
      trimmed.add(scorePair(l.gt, t.text));
      guarded.add(scorePair(l.gt, g.corrected_text));
      if (t.trimmed) cut++;
      decisions[g.guard] = (decisions[g.guard] ?? 0) + 1;
    }
    const ds = Object.entries(decisions)
      .sort((a, b) => b[1] - a[1])
      .map(([d, n]) => `${d} ${n}`)
      .join(', ');
    console.log(`| ${name} | ${pct(given)} | ${pct(trimmed)} | ${cut} | ${pct(guarded)} | ${ds} |`);
  }
}

const CONTINUATIONS = ['gold + 3 words', 'gold + next line', 'gold twice'];
const REJECTS = ['wrong line', 'first half'];
const GOLD_TRIM_CAP = 0.002;
const GOLD_FALLBACK_CAP = 0.01;

/** Mean over `scenarios` of the corpus CER of `pick(trimmed text, line)`. */
function meanCer(
  lines: Line[],
  trims: Map<string, string[]>,
  pick: (text: string, l: Line) => string,
  scenarios = Object.keys(SCENARIOS),
): number {
  let total = 0;
  for (const name of scenarios) {
    const acc = new ErrorRateAccumulator();
    const texts = trims.get(name)!;
    lines.forEach((l, i) => acc.add(scorePair(l.gt, pick(texts[i], l))));
    total += acc.cer.rate ?? 0;
  }
  return total / scenarios.length;
}

function trimsFor(lines: Line[], spanMinSaving: number): Map<string, string[]> {
  return new Map(
    Object.entries(SCENARIOS).map(([name, answer]) => [name, lines.map((l) => trimOutput(answer(l), l.ocr, spanMinSaving).text)]),
  );
}

const guardPick = (s: Pick<GuardSettings, 'max_edit_ratio' | 'length_ratio'>) => (text: string, l: Line) =>
  fallbackReason(text, l.ocr, s) ? l.ocr : text;

const fmt = (x: number) => `${(x * 100).toFixed(3)} %`;

/** The first of `xs` with the lowest `cost` among those that pass `ok` (the first one when none passes). */
function best<T>(xs: T[], ok: (x: T) => boolean, cost: (x: T) => number): T {
  const pool = xs.filter(ok);
  return (pool.length ? pool : xs).reduce((a, b) => (cost(b) < cost(a) - 1e-12 ? b : a));
}

/** Choose SPAN_MIN_SAVING, then max_edit_ratio and length_ratio, on the dev lines; report both settings on the rest. */
function chooseOnDev(dev: Line[], rest: Line[]): void {
  const savings = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
  const bySaving = savings.map((v) => {
    const trims = trimsFor(dev, v);
    return { v, trims, gold: meanCer(dev, trims, (t) => t, ['gold']), cont: meanCer(dev, trims, (t) => t, CONTINUATIONS) };
  });
  for (const s of bySaving)
    console.log(`dev: SPAN_MIN_SAVING ${s.v.toFixed(1)} → gold trimmed CER ${fmt(s.gold)}, continuations ${fmt(s.cont)}`);
  const saving = best(
    bySaving,
    (s) => s.gold <= GOLD_TRIM_CAP,
    (s) => s.cont,
  );
  const grid: Array<Pick<GuardSettings, 'max_edit_ratio' | 'length_ratio'>> = [
    { max_edit_ratio: GUARD_DEFAULTS.max_edit_ratio, length_ratio: GUARD_DEFAULTS.length_ratio },
  ];
  for (const e of [0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    for (const lo of [0.5, 0.6, 0.7, 0.8])
      for (const hi of [1.2, 1.3, 1.5, 1.7, 2.0]) grid.push({ max_edit_ratio: e, length_ratio: [lo, hi] });
  const goldTrims = saving.trims.get('gold')!;
  const scored = grid.map((g) => ({
    g,
    goldFallback: dev.filter((l, i) => fallbackReason(goldTrims[i], l.ocr, g) !== null).length / dev.length,
    rejects: meanCer(dev, saving.trims, guardPick(g), REJECTS),
  }));
  const chosen = best(
    scored,
    (x) => x.goldFallback <= GOLD_FALLBACK_CAP,
    (x) => x.rejects,
  );
  const current = scored[0];
  const line = (x: typeof current) =>
    `gold falls back on ${fmt(x.goldFallback)} of lines, wrong/half-line answers guarded CER ${fmt(x.rejects)}`;
  console.log(
    `\ndev (${dev.length} lines): chosen SPAN_MIN_SAVING ${saving.v} (current ${SPAN_MIN_SAVING}), max_edit_ratio ${chosen.g.max_edit_ratio}, length_ratio [${chosen.g.length_ratio.join(', ')}]`,
  );
  console.log(`dev: chosen — ${line(chosen)}; current defaults — ${line(current)}`);
  const restCurrent = trimsFor(rest, SPAN_MIN_SAVING);
  const restChosen = saving.v === SPAN_MIN_SAVING ? restCurrent : trimsFor(rest, saving.v);
  console.log(
    `held out (${rest.length} lines): mean guarded CER over all scenarios — chosen ${fmt(meanCer(rest, restChosen, guardPick(chosen.g)))}, current ${fmt(meanCer(rest, restCurrent, guardPick(GUARD_DEFAULTS)))}\n`,
  );
  console.log(
    `Held-out lines, chosen settings (SPAN_MIN_SAVING ${saving.v}, max_edit_ratio ${chosen.g.max_edit_ratio}, length_ratio [${chosen.g.length_ratio.join(', ')}]):`,
  );
  table(rest, { ...GUARD_DEFAULTS, enabled: true, ...chosen.g }, saving.v);
  console.log(
    `\nHeld-out lines, current defaults (SPAN_MIN_SAVING ${SPAN_MIN_SAVING}, max_edit_ratio ${GUARD_DEFAULTS.max_edit_ratio}, length_ratio [${GUARD_DEFAULTS.length_ratio.join(', ')}]):`,
  );
  table(rest, { ...GUARD_DEFAULTS, enabled: true }, SPAN_MIN_SAVING);
}

function main(): void {
  if (!existsSync(OCR_GS_ROOT)) throw new Error(`no OCR_GS data at ${OCR_GS_ROOT} (set SHARED_DATA)`);
  const lines = withNext(loadOcrGsLines(OCR_GS_ROOT));
  const split = process.argv.includes('--split') ? process.argv[process.argv.indexOf('--split') + 1] : null;
  if (split !== null && split !== 'dev') throw new Error(`--split: expected "dev", got "${split}"`);
  if (split === 'dev')
    return chooseOnDev(
      lines.filter(isDevLine),
      lines.filter((l) => !isDevLine(l)),
    );
  const settings = { ...GUARD_DEFAULTS, enabled: true };
  console.log(`${lines.length} OCR_GS lines; guard ${JSON.stringify(settings)}\n`);
  table(lines, settings, SPAN_MIN_SAVING);
}

main();
