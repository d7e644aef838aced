/**
 * Witness retrieval on the real golden set, and its cost at the scale of the whole OpenITI slice.
 *
 *   npx tsx bench/witness-recall.ts [--corpus slice|sources] [--out results/witness-bench]
 *        [--eval-dir results/eval-retrieval] [--latency-queries 200] [--n 5] [--stride 1] [--rebuild] [--candidates 16]
 *        [--context 1]
 *
 * For the two OCR_GS books whose source is in the slice (src/eval/golden.ts: Ibn Qutayba's Adab al-Katib,
 * al-Yaʿqubi's Tarikh), per line: whether its source is in the corpus (src/witness/source-coverage.ts: ≥ 90 %
 * of the gold line's 5-grams, NFC without diacritics, tatweel and whitespace, occur in the source work), its
 * true source passage (src/witness/recall.ts: placed by the gold lines on each side, `*_truth_in_context`, the
 * definition the goal is measured on, docs/witness-context.md; and with ties to the earliest position, `witness_r1`) and the rank of the first correct witness hit for the OCR
 * text, searched with --context OCR lines on each side (the dataset's order; src/witness/context-search.ts; 0: the
 * line alone, also reported as `witness_alone_r1`). A hit is correct when its physical lines overlap a true
 * passage's in the same file: it is a span of the line itself, never of its neighbours. Dense and hybrid (e5-small, the evaluation corpus of bench/eval-retrieval.ts) are scored against
 * the same passages from that bench's per-line output when --eval-dir holds it (run it first), their
 * latency measured here on the same queries. `--corpus slice` indexes every work of the slice (the
 * whole-slice scale figures: build time, size on disk, peak RSS, latency); `sources` only the two books.
 * Numbers are printed (and written to <out>/witness_recall.json), never asserted.
 */
import { existsSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../src/datasets';
import { DEFAULT_GOLDEN_BOOKS } from '../src/eval/golden';
import { sha256Text } from '../src/util/hash';
import {
  buildWitnessDir,
  buildWitnessIndex,
  readWitnessManifest,
  readWitnessWork,
  selectWorkFiles,
  WitnessRetriever,
} from '../src/witness';
import { linesInContext } from '../src/witness/context-search';
import { witnessKey } from '../src/witness/key';
import { gramCoverage, gramSet, SOURCE_IN_CORPUS_MIN_COVERAGE } from '../src/witness/source-coverage';
import { firstCorrectRank, lineHitCorrect, lineSpanCorrect, recallAt, truePassages, type TruePassage } from '../src/witness/recall';
import { denseLatency, evalDirRanks } from './witness-dense';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, fallback?: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const SHARED = process.env.SHARED_DATA ?? path.resolve(REPO, '..', 'shared', 'data');
const openitiRoot = arg('--openiti', path.join(SHARED, 'openiti'))!;
const ocrGsRoot = arg('--ocr-gs', path.join(SHARED, 'ocr-gs'))!;
const corpus = arg('--corpus', 'slice')!;
const out = path.resolve(arg('--out', path.join(REPO, 'results', 'witness-bench'))!);
const evalDir = path.resolve(arg('--eval-dir', path.join(REPO, 'results', 'eval-retrieval'))!);
const params = { n: Number(arg('--n', '5')), stride: Number(arg('--stride', '1')) };
const contextWidth = Number(arg('--context', '1'));
if (!existsSync(openitiRoot) || !existsSync(ocrGsRoot)) {
  console.log(`skipped: no real data at ${openitiRoot} / ${ocrGsRoot}`);
  process.exit(0);
}

const dirSize = (d: string) => readdirSync(d).reduce((s, f) => s + statSync(path.join(d, f)).size, 0);
const mb = (b: number) => (b / 2 ** 20).toFixed(0);

// 1. The index (built once per corpus and parameters, cached under --out).
const include = corpus === 'sources' ? DEFAULT_GOLDEN_BOOKS.map((b) => b.sourcePattern) : [];
const { files, missing } = await selectWorkFiles({ openitiRoot, include });
const bytes = files.reduce((s, f) => s + statSync(f.file).size, 0);
const fingerprint = sha256Text(JSON.stringify({ v: 1, params, files: files.map((f) => [f.uri, statSync(f.file).size]) })).slice(0, 16);
const dir = path.join(out, `index-${corpus}-${fingerprint}`);
let build: Record<string, number> | null = null;
if (process.argv.includes('--rebuild') || !readWitnessManifest(dir)) {
  const t0 = Date.now();
  const m = await buildWitnessDir({
    files,
    dir,
    fingerprint,
    missing,
    params,
    onWork: (d, t) => process.stderr.write(`\rbuild: ${d}/${t} works`),
  });
  process.stderr.write('\n');
  build = {
    seconds: (Date.now() - t0) / 1000,
    peak_rss_mb: Number(mb(process.resourceUsage().maxRSS * 1024)),
    key_chars: m.key_chars,
    postings: m.postings,
    lines: m.lines,
  };
}
const rssBeforeLoad = process.memoryUsage().rss;
const retriever = WitnessRetriever.open(dir, { candidates: Number(arg('--candidates', '16')) });
const manifest = retriever.manifest!;
const index = {
  corpus,
  works: files.length,
  missing_files: missing.length,
  source_mb: Number(mb(bytes)),
  lines: manifest.lines,
  key_chars: manifest.key_chars,
  postings: manifest.postings,
  params: manifest.params,
  disk_mb: Number(mb(dirSize(dir))),
  rss_after_load_mb: Number(mb(process.memoryUsage().rss)),
  rss_before_load_mb: Number(mb(rssBeforeLoad)),
};
console.log('index', JSON.stringify(index), build ? `\nbuild ${JSON.stringify(build)}` : '(cached)');

// 2. Every line of the two books: source in corpus?, true passages, witness ranks and latency.
interface Row {
  gold_letters: number;
  sample_id: string;
  dataset: string;
  ocr_text: string;
  coverage: number | null;
  qualifies: boolean;
  truth: TruePassage[];
  witness_rank: number | null;
  alone_rank: number | null;
  /** Ranks against the true passages of the gold line placed by its gold neighbours (truePassages with neighbours). */
  rank_truth_in_context: number | null;
  alone_rank_truth_in_context: number | null;
  ms: number;
  alone_ms: number;
}
const rows: Row[] = [];
for (const book of DEFAULT_GOLDEN_BOOKS) {
  const src = await selectWorkFiles({ openitiRoot, include: [book.sourcePattern] });
  const works = await Promise.all(src.files.map((f) => readWitnessWork(f.file, f.uri, f.date)));
  const grams = gramSet(works.flatMap((w) => w.lines.map((l) => l.text)));
  // True passages are found in an index of the source work alone (the same in every corpus); hits are judged by lines.
  const own = buildWitnessIndex(works, params);
  const ownTexts = { get: (l: number) => own.texts[l] };
  const ds = await loadDataset({ key: book.key, type: 'paired_dir', path: path.join(ocrGsRoot, book.folder) }, {});
  const lines = linesInContext(
    ds.samples.map((s) => s.ocr_text),
    contextWidth,
  );
  const goldLines = linesInContext(
    ds.samples.map((s) => s.gt_text),
    Math.max(1, contextWidth),
  );
  for (const [i, s] of ds.samples.entries()) {
    const coverage = gramCoverage(s.gt_text, grams);
    const truth = truePassages(own.data, ownTexts, s.gt_text, book.sourcePattern);
    const gold = goldLines[i];
    const truthInContext = truePassages(own.data, ownTexts, s.gt_text, book.sourcePattern, gold);
    const t = performance.now();
    const hits = retriever.retrieveInContext(lines[i], 3);
    const ms = performance.now() - t;
    const correct = (h: (typeof hits)[number]) => lineSpanCorrect(h, truth);
    const t1 = performance.now();
    const alone = retriever.retrieve(s.ocr_text, 3);
    const aloneMs = performance.now() - t1;
    rows.push({
      sample_id: s.sample_id,
      dataset: book.key,
      ocr_text: s.ocr_text,
      coverage,
      qualifies: coverage !== null && coverage >= SOURCE_IN_CORPUS_MIN_COVERAGE,
      truth,
      witness_rank: firstCorrectRank(hits, correct),
      alone_rank: firstCorrectRank(alone, correct),
      alone_ms: aloneMs,
      rank_truth_in_context: firstCorrectRank(hits, (h) => lineSpanCorrect(h, truthInContext)),
      alone_rank_truth_in_context: firstCorrectRank(alone, (h) => lineSpanCorrect(h, truthInContext)),
      ms,
      gold_letters: witnessKey(s.gt_text).length,
    });
  }
}

// 3. Dense and hybrid from bench/eval-retrieval.ts's per-line output, scored against the same passages.
const other = evalDirRanks(evalDir, rows, lineHitCorrect);
const latency = other
  ? await denseLatency(
      evalDir,
      rows
        .filter((r) => r.qualifies)
        .map((r) => r.ocr_text)
        .slice(0, Number(arg('--latency-queries', '200'))),
    )
  : null;

// 4. The table.
const pct = (x: number[]) => {
  const s = [...x].sort((a, b) => a - b);
  return (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const table: Record<string, unknown>[] = [{ context_lines_each_side: contextWidth }];
for (const scope of [...DEFAULT_GOLDEN_BOOKS.map((b) => b.key), 'both']) {
  const rs = rows.filter((r) => r.qualifies && (scope === 'both' || r.dataset === scope));
  const all = rows.filter((r) => scope === 'both' || r.dataset === scope);
  const p = pct(rs.map((r) => r.ms));
  const long = rs.filter((r) => r.gold_letters >= 15);
  const row: Record<string, unknown> = {
    scope,
    lines: all.length,
    source_in_corpus: rs.length,
    witness_r1: recallAt(
      rs.map((r) => r.witness_rank),
      1,
    ),
    witness_r3: recallAt(
      rs.map((r) => r.witness_rank),
      3,
    ),
    witness_alone_r1: recallAt(
      rs.map((r) => r.alone_rank),
      1,
    ),
    witness_r1_truth_in_context: recallAt(
      rs.map((r) => r.rank_truth_in_context),
      1,
    ),
    witness_alone_r1_truth_in_context: recallAt(
      rs.map((r) => r.alone_rank_truth_in_context),
      1,
    ),
    witness_alone_ms_median: pct(rs.map((r) => r.alone_ms))(0.5),
    witness_ms_median: p(0.5),
    witness_ms_p95: p(0.95),
    lines_15_letters: long.length,
    witness_r1_15_letters: recallAt(
      long.map((r) => r.witness_rank),
      1,
    ),
  };
  if (other) {
    for (const [name, ranks] of Object.entries(other)) {
      const sub = rs.filter((r) => ranks.has(r.sample_id));
      row[`${name}_lines`] = sub.length;
      row[`${name}_r1`] = recallAt(
        sub.map((r) => ranks.get(r.sample_id)!),
        1,
      );
      row[`${name}_r3`] = recallAt(
        sub.map((r) => ranks.get(r.sample_id)!),
        3,
      );
      row[`witness_r1_same_lines_as_${name}`] = recallAt(
        sub.map((r) => r.witness_rank),
        1,
      );
    }
  }
  table.push(row);
}
const fmt = (v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : String(v));
for (const r of table)
  console.log(
    Object.entries(r)
      .map(([k, v]) => `${k}=${fmt(v)}`)
      .join('  '),
  );
if (latency) console.log('latency per query (ms, 1 query at a time):', JSON.stringify(latency));
mkdirSync(out, { recursive: true });
writeFileSync(
  path.join(out, 'witness_recall.json'),
  `${JSON.stringify(
    {
      index,
      build,
      table,
      latency,
      misses: rows
        .filter((r) => r.qualifies && (r.witness_rank !== 1 || r.rank_truth_in_context !== 1))
        .map((r) => ({
          sample_id: r.sample_id,
          dataset: r.dataset,
          coverage: r.coverage,
          rank: r.witness_rank,
          alone_rank: r.alone_rank,
          rank_truth_in_context: r.rank_truth_in_context,
          truth: r.truth,
        })),
    },
    null,
    1,
  )}\n`,
);
console.log(`written ${path.join(out, 'witness_recall.json')}`);
