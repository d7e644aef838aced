/**
 * The non-LLM correctors (docs/correctors.md) on all 5,092 OCR_GS lines: what `collate` and `lexicon` do on this
 * data, the floor an LLM arm must clear.
 *
 *   nice -n 10 npx tsx bench/baselines.ts [--iterations 2000] [--out results/baselines] [--witness-bench results/witness-bench]
 *
 * - Witnesses: witness retrieval (src/witness, docs/witness-context.md) over every work of the OpenITI slice —
 *   al-Yaʿqubi's and Ibn Qutayba's sources among them, the other three books against the whole slice — each OCR
 *   line searched with one OCR line on each side, 3 hits (bench/baselines-index.ts builds or reuses the index).
 * - Lexicon: the vocabulary of every line of the slice (the index's lines.txt: the corpus parser's text of every
 *   work); the confusion model from the dev lines' OCR/gold pairs.
 * - Settings chosen on the dev split (bench/dev-split.ts: every fifth line of each book): the collate threshold
 *   (lowest dev CER over a grid) and the lexicon's min_count and margin (likewise); the table is on the other
 *   4,072 lines, per book and pooled, with block-bootstrap CIs (bench/baselines-table.ts). CER in canonical form,
 *   profile `nfc`.
 */
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { collateLine, type CollateHit } from '../src/correctors/collate';
import { ConfusionModel } from '../src/correctors/confusion';
import { lexiconCorrectLine, type LexiconModel, type LexiconSettings } from '../src/correctors/lexicon';
import { Vocabulary } from '../src/correctors/vocabulary';
import { ErrorRateAccumulator, scorePair } from '../src/text/distance';
import { linesInContext, WITNESS_CONTEXT_LINES, WitnessRetriever } from '../src/witness';
import { loadOcrGsLines, type OcrGsLine } from '../test/helpers/ocr-gs-lines';
import { OCR_GS_ROOT, OPENITI_ROOT, REPO_ROOT } from '../test/helpers/shared-data';
import { sliceWitnessDir } from './baselines-index';
import { baselineTable, type ScoredLine } from './baselines-table';
import { isDevLine } from './dev-split';

const { values: args } = parseArgs({
  options: {
    iterations: { type: 'string', default: '2000' },
    out: { type: 'string', default: path.join(REPO_ROOT, 'results', 'baselines') },
    'witness-bench': { type: 'string', default: path.join(REPO_ROOT, 'results', 'witness-bench') },
  },
});
const out = path.resolve(args.out!);
const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(0)} s`;

/** 3 witness hits per line (cached in <out>/hits.json, keyed by the index directory). */
async function witnessHits(lines: OcrGsLine[], dir: string): Promise<CollateHit[][]> {
  const cache = path.join(out, 'hits.json');
  if (existsSync(cache)) {
    const c = JSON.parse(readFileSync(cache, 'utf8')) as { dir: string; hits: CollateHit[][] };
    if (c.dir === dir && c.hits.length === lines.length) return c.hits;
  }
  const t0 = performance.now();
  const r = WitnessRetriever.open(dir);
  const hits: CollateHit[][] = [];
  for (const book of [...new Set(lines.map((l) => l.book))]) {
    const ctx = linesInContext(
      lines.filter((l) => l.book === book).map((l) => l.ocr),
      WITNESS_CONTEXT_LINES,
    );
    for (const l of ctx) hits.push(r.retrieveInContext(l, 3).map((h) => ({ text: h.text, source_uri: h.source_uri })));
  }
  r.close();
  writeFileSync(cache, JSON.stringify({ dir, hits }));
  console.error(`witness hits for ${lines.length} lines: ${seconds(t0)}`);
  return hits;
}

/** The words of every line of the indexed slice (cached in <out>/vocabulary.json). */
async function sliceVocabulary(dir: string): Promise<Vocabulary> {
  const cache = path.join(out, 'vocabulary.json');
  const v = new Vocabulary();
  if (existsSync(cache)) {
    const c = JSON.parse(readFileSync(cache, 'utf8')) as { dir: string; counts: [string, number][]; total: number };
    if (c.dir === dir) {
      for (const [w, n] of c.counts) v.counts.set(w, n);
      v.total = c.total;
      return v;
    }
  }
  const t0 = performance.now();
  for await (const line of createInterface({ input: createReadStream(path.join(dir, 'lines.txt'), 'utf8'), crlfDelay: Infinity }))
    v.addText(line);
  writeFileSync(cache, JSON.stringify({ dir, counts: [...v.counts], total: v.total }));
  console.error(`vocabulary: ${v.counts.size} words, ${v.total} tokens in ${seconds(t0)}`);
  return v;
}

const cer = (ls: readonly OcrGsLine[], texts: readonly string[]) => {
  const acc = new ErrorRateAccumulator();
  ls.forEach((l, i) => acc.add(scorePair(l.gt, texts[i])));
  return acc.cer.rate ?? 0;
};

/** The grid value with the lowest dev CER (ties: the first). */
function chooseOnDev<T>(name: string, grid: T[], dev: OcrGsLine[], run: (setting: T) => string[]): T {
  let best = grid[0];
  let bestCer = Infinity;
  for (const g of grid) {
    const c = cer(dev, run(g));
    console.error(`dev: ${name} ${JSON.stringify(g)} → CER ${(c * 100).toFixed(3)} %`);
    if (c < bestCer - 1e-12) [best, bestCer] = [g, c];
  }
  console.log(`${name} chosen on the dev split (${dev.length} lines): ${JSON.stringify(best)}, dev CER ${(bestCer * 100).toFixed(2)} %`);
  return best;
}

async function main(): Promise<void> {
  if (!existsSync(OCR_GS_ROOT) || !existsSync(OPENITI_ROOT))
    throw new Error(`no real data at ${OCR_GS_ROOT} / ${OPENITI_ROOT} (set SHARED_DATA)`);
  mkdirSync(out, { recursive: true });
  const lines = loadOcrGsLines(OCR_GS_ROOT);
  const dev = lines.filter(isDevLine);
  const devIdx = lines.flatMap((l, i) => (isDevLine(l) ? [i] : []));
  const dir = await sliceWitnessDir(OPENITI_ROOT, path.resolve(args['witness-bench']!));

  const hits = await witnessHits(lines, dir);
  const threshold = chooseOnDev('collate min_similarity', [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95], dev, (t) =>
    devIdx.map((i) => collateLine(lines[i].ocr, hits[i], t).text),
  );
  const collated = lines.map((l, i) => collateLine(l.ocr, hits[i], threshold));
  const bestOnly = lines.map((l, i) => collateLine(l.ocr, hits[i], threshold, false));

  const confusion = new ConfusionModel();
  for (const l of dev) confusion.add(l.ocr, l.gt);
  const model: LexiconModel = { vocabulary: await sliceVocabulary(dir), confusion };
  const grid: LexiconSettings[] = [];
  for (const min_count of [2, 5, 20, 100]) for (const margin of [0, 3, 6]) grid.push({ min_count, margin });
  const t0 = performance.now();
  const settings = chooseOnDev('lexicon settings', grid, dev, (s) => dev.map((l) => lexiconCorrectLine(l.ocr, model, s).text));
  const lexicon = lines.map((l) => lexiconCorrectLine(l.ocr, model, settings));
  console.error(`lexicon: ${seconds(t0)}`);

  const held: ScoredLine[] = lines.flatMap((l, i) =>
    isDevLine(l)
      ? []
      : [{ ...l, out: { collate: collated[i].text, 'collate, best witness only': bestOnly[i].text, lexicon: lexicon[i].text } }],
  );
  const reasons: Record<string, number> = {};
  lines.forEach((l, i) => !isDevLine(l) && (reasons[collated[i].reason] = (reasons[collated[i].reason] ?? 0) + 1));
  console.log(
    `\nHeld-out lines (${held.length}); CER in canonical form, profile nfc; ΔCER = corrector − OCR, block bootstrap ${args.iterations} resamples:\n`,
  );
  for (const row of baselineTable(held, ['collate', 'collate, best witness only', 'lexicon'], Number(args.iterations))) console.log(row);
  console.log(`\ncollate decisions on the held-out lines: ${JSON.stringify(reasons)}`);
  const words = lexicon.reduce((s, d) => s + d.words, 0);
  const changed = lexicon.reduce((s, d) => s + d.changes.length, 0);
  console.log(
    `lexicon: ${model.vocabulary.counts.size.toLocaleString('en')} word types, ${model.vocabulary.total.toLocaleString('en')} tokens; ${changed} of ${words} OCR words replaced (all lines)`,
  );
  writeFileSync(
    path.join(out, 'baselines.json'),
    JSON.stringify({ threshold, settings, collate: collated, lexicon: lexicon.map((d) => d.changes) }),
  );
}

await main();
