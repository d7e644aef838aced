import { expect } from 'chai';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import type { AnalyzeOptions } from '../../../analysis/types';
import { FIXTURES, OCR_GS_ROOT, requireSharedData } from '../../helpers/shared-data';
import { readOcrGsBook, writeStudy, type Pair } from '../helpers';

const TOY = path.join(FIXTURES, 'analysis', 'study');

function tmp(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'analysis-test-'));
}

function copyToy(): { root: string; ragDir: string; baselineDir: string } {
  const root = tmp();
  cpSync(TOY, root, { recursive: true });
  return { root, ragDir: path.join(root, 'phase5'), baselineDir: path.join(root, 'phase2') };
}

const toyOptions = (ragDir: string, baselineDir: string): AnalyzeOptions => ({
  ragDir,
  baselineDir,
  meta: { embedding_model: 'intfloat/multilingual-e5-small', top_k: 3, corpus_size: 1234 },
  datasetInfo: {
    'TOY-A': { excluded: false, sourcePattern: '0276IbnQutayba.Adab*' },
    'TOY-B': { excluded: true, sourcePattern: '0276IbnQutayba.Adab*' },
  },
  // 6 and 3 lines: the toy figures are computed with intervals on purpose (min_clusters has its own tests).
  bootstrap: { iterations: 200, seed: 7, minClusters: 1 },
  report: false,
  progress: 'silent',
  // The toy study fails a line on purpose (scored as identity); the validity mark has its own tests (validity.test.ts).
  maxFailedShare: 1,
});

const read = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

/** Every file under dir (relative path → bytes), phase5.log excluded (an append-only journal). */
function snapshot(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name !== 'phase5.log') out.set(path.relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

describe('analysis/analyze (toy study)', function () {
  this.timeout(60000);
  let root: string;
  let ragDir: string;
  let summary: Awaited<ReturnType<typeof analyzeDesignFiles>>;

  before(async () => {
    ({ root, ragDir } = copyToy());
    summary = await analyzeDesignFiles(toyOptions(ragDir, path.join(root, 'phase2')));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('writes the docs/outputs.md#layout layout', () => {
    for (const ds of ['TOY-A', 'TOY-B']) {
      for (const f of ['corrections.jsonl', 'metrics.json', 'comparison_vs_phase2.json', 'error_changes.json', 'retrieval_analysis.json']) {
        expect(existsSync(path.join(ragDir, ds, f)), `${ds}/${f}`).to.equal(true);
      }
    }
    for (const f of ['metrics.json', 'comparison.json', 'phase5.log']) expect(existsSync(path.join(ragDir, f)), f).to.equal(true);
    expect(summary.files).to.include.members(['TOY-A/metrics.json', 'metrics.json', 'comparison.json']);
    expect([...summary.files].sort()).to.deep.equal(summary.files);
  });

  it('metrics.json: spec meta and hand-computed CER/WER for corrected and raw OCR', () => {
    const m = read(path.join(ragDir, 'TOY-A', 'metrics.json'));
    expect(m.meta).to.deep.equal({
      phase: 'phase5',
      dataset: 'TOY-A',
      model: 'toy/llm',
      prompt_type: 'rag',
      prompt_version: 'p5v1',
      embedding_model: 'intfloat/multilingual-e5-small',
      top_k: 3,
      corpus_size: 1234,
      generated_at: m.meta.generated_at,
      num_samples: 6,
    });
    expect(m.meta.generated_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // 32 gold characters, 8 words. OCR: 4 char edits / 5 word edits. Phase 5: a5 failed (scored as OCR: 1) + a6 inserted ا (1).
    expect(m.corrected).to.include({ cer: 0.0625, wer: 0.25, char_edits: 2, ref_chars: 32, word_edits: 2, ref_words: 8 });
    expect(m.ocr_baseline).to.include({ cer: 0.125, wer: 0.625, char_edits: 4 });
    expect(m.failures).to.deep.include({ total: 1, error: 1, empty_output: 0 });
    expect(m.counts.by_prompt_type).to.deep.equal({ rag: 5, zero_shot_fallback: 1 });
    expect(m.line_effects).to.include({ helped: 3, harmed: 1, unchanged: 2, help_rate: 0.5, harm_rate: 0.166667 });
    expect(m.normalized.label).to.match(/^SECONDARY/);
    expect(m.scoring.failed_lines).to.match(/identity/);
    expect(m.scoring.text_preparation).to.equal('Unicode NFC; trimmed; whitespace runs collapsed to one space');
    // Every profile side by side: the primary one repeats the headline figures; each carries its rules.
    expect(m.profiles.map((p: { profile: string; primary: boolean }) => [p.profile, p.primary])).to.deep.equal([
      ['nfc', true],
      ['no_diacritics', false],
      ['graphemes', false],
    ]);
    expect(m.profiles[0].corrected).to.deep.equal({ cer: m.corrected.cer, wer: m.corrected.wer });
    expect(m.profiles[0].ocr_baseline).to.deep.equal({ cer: m.ocr_baseline.cer, wer: m.ocr_baseline.wer });
    expect(m.profiles[1].rules).to.match(/KITAB-Bench/);
    expect(m.profiles[1].corrected).to.deep.equal(m.normalized.corrected);
  });

  it('counts an empty output as a failure and skips a duplicate line', () => {
    const m = read(path.join(ragDir, 'TOY-B', 'metrics.json'));
    expect(m.meta.num_samples).to.equal(3);
    expect(m.failures).to.deep.include({ total: 1, error: 0, empty_output: 1 });
    // b2 (failed) is scored as its OCR "عم" (1 edit); the duplicate b1 with "غلط" was not scored.
    expect(m.corrected).to.include({ char_edits: 1, ref_chars: 10, cer: 0.1 });
    const split = readFileSync(path.join(ragDir, 'TOY-B', 'corrections.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(split.map((r) => r.sample_id)).to.deep.equal(['b1', 'b2', 'b3']);
    expect(split[0].corrected_text).to.equal('سلام');
    expect(summary.warnings.some((w) => /duplicate sample_id "b1"/.test(w))).to.equal(true);
  });

  it('comparison_vs_phase2.json: docs/outputs.md keys, deltas and interpretation', () => {
    const c = read(path.join(ragDir, 'TOY-A', 'comparison_vs_phase2.json'));
    expect(c.meta).to.include({ comparison: 'phase5_vs_phase2', dataset: 'TOY-A', n_paired: 6 });
    expect(c.phase2_baseline).to.deep.equal({ cer: 0.09375, wer: 0.5 });
    expect(c.phase5_corrected).to.deep.equal({ cer: 0.0625, wer: 0.25 });
    expect(c.delta).to.deep.equal({ cer_absolute: -0.03125, wer_absolute: -0.25, cer_relative_pct: -33.33, wer_relative_pct: -50 });
    expect(c.interpretation).to.match(/^CER reduced by 33\.3% vs Phase 2 \(ΔCER −0\.0313, 95% CI \[/);
    expect(c.bootstrap.delta_cer.estimate).to.equal(-0.03125);
    expect(c.bootstrap.delta_cer.ci95[0]).to.be.at.most(c.bootstrap.delta_cer.ci95[1]);
    expect(c.bootstrap.cer_ci95).to.have.all.keys('ocr', 'phase2', 'phase5');
    expect(c.line_effects).to.include({ phase5_better_than_phase2: 3, phase5_worse_than_phase2: 2, tied: 1 });
    expect(Object.keys(c.by_ocr_cer_band)).to.deep.equal(['0–2%', '2–5%', '5–10%', '10–20%', '>20%']);
    // Bands of the raw OCR line CER: a1, a6 at 0 → 0–2%; a3 1/9 and a4 1/8 → 10–20%; a2 1/5 and a5 1/3 → >20%.
    expect(c.by_ocr_cer_band['0–2%'].n_samples).to.equal(2);
    expect(c.by_ocr_cer_band['2–5%'].n_samples).to.equal(0);
    expect(c.by_ocr_cer_band['10–20%'].n_samples).to.equal(2);
    expect(c.by_ocr_cer_band['>20%']).to.include({ n_samples: 2, ocr_cer: 0.25 });
  });

  it('comparisons use only samples present in both arms', () => {
    const c = read(path.join(ragDir, 'TOY-B', 'comparison_vs_phase2.json'));
    // b2 has no Phase 2 line: the comparison set is b1 + b3 (7 gold characters).
    expect(c.meta).to.include({ n_paired: 2, phase5_samples: 3, phase5_without_phase2: 1 });
    expect(c.phase2_baseline.cer).to.equal(0.142857);
    expect(c.phase5_corrected.cer).to.equal(0);
    expect(c.delta.cer_relative_pct).to.equal(-100);
  });

  it('retrieval_analysis.json: docs/outputs.md statistics, buckets, halves and eras', () => {
    const r = read(path.join(ragDir, 'TOY-A', 'retrieval_analysis.json'));
    expect(r.meta).to.include({ dataset: 'TOY-A', top_k: 3, embedding_model: 'intfloat/multilingual-e5-small' });
    expect(r.retrieval_stats).to.include({
      samples_with_any_retrieval: 5,
      samples_zero_results: 1,
      avg_top1_score: 0.74,
      avg_top3_score: 0.673333,
    });
    expect(r.retrieval_stats.score_distribution).to.deep.equal({ '0.8+': 2, '0.7–0.8': 1, '0.6–0.7': 1, '<0.6': 1 });
    const be = r.retrieval_by_error_type;
    expect(be.note).to.be.a('string');
    // Sorted by top-1: a4 .55, a3 .65 | a2 .75 | a1 .85, a6 .9
    expect(be.low_score_samples).to.include({ n_samples: 2, phase2_cer: 0.117647, phase5_cer: 0, cer_improvement: 0.117647 });
    expect(be.high_score_samples).to.include({ n_samples: 2, phase2_cer: 0, phase5_cer: 0.142857, cer_improvement: -0.142857 });
    expect(be.split.median_top1_score).to.equal(0.75);
    expect(be.by_score_bucket['0.8+']).to.include({ n_samples: 2, delta_cer: 0.142857 });
    expect(be.high_score_samples.by_error_category.other_letter).to.deep.equal({ fixed: 0, introduced: 1, net_fixed: -1 });
    expect(r.corpus_date_distribution).to.deep.equal({ '0-300': 0.4, '300-600': 0.2, '600-900': 0, '900+': 0 });
    expect(r.corpus_date_counts).to.deep.equal({ '0-300': 2, '300-600': 1, '600-900': 0, '900+': 0, unknown: 2 });
    expect(r.score_histogram.bins.reduce((a: number, b: { count: number }) => a + b.count, 0)).to.equal(5);
  });

  it('states leakage from the config flag and the sources actually retrieved', () => {
    const a = read(path.join(ragDir, 'TOY-A', 'retrieval_analysis.json')).leakage;
    expect(a).to.include({
      source_excluded_by_config: false,
      top1_source_matches: 2,
      topk_source_matches: 3,
      samples_with_retrieval: 5,
      top1_match_rate: 0.4,
    });
    expect(a.statement).to.match(/^LEAKAGE: source book NOT excluded/);
    const b = read(path.join(ragDir, 'TOY-B', 'retrieval_analysis.json')).leakage;
    expect(b).to.include({ source_excluded_by_config: true, top1_source_matches: 0 });
    expect(b.statement).to.match(/excluded from the corpus; none of 3 retrievals came from it/);
    const agg = read(path.join(ragDir, 'metrics.json'));
    expect(agg.datasets['TOY-A'].leakage).to.equal(a.statement);
  });

  it('error_changes.json: fixed / introduced / unchanged by type and category', () => {
    const e = read(path.join(ragDir, 'TOY-A', 'error_changes.json'));
    expect(e.phase5.totals).to.include({
      ocr_errors: 4,
      corrected_errors: 2,
      fixed: 3,
      introduced: 1,
      unchanged: 1,
      net_error_change: -2,
      fix_rate: 0.75,
    });
    expect(e.phase5.by_edit_type.deletion).to.include({ fixed: 1 });
    expect(e.phase5.by_edit_type.insertion).to.include({ introduced: 1 });
    expect(e.phase5.by_category.ta_marbuta.fixed).to.equal(1);
    expect(e.phase5.by_category.whitespace.fixed).to.equal(1);
    expect(e.phase5.by_category.dots_same_skeleton).to.include({ fixed: 1, unchanged: 1 });
    expect(e.phase5.top_confusions.introduced).to.deep.equal([
      { type: 'insertion', ref: '', hyp: 'ا', category: 'other_letter', count: 1 },
    ]);
    expect(e.phase2.totals).to.include({ ocr_errors: 4, fixed: 1, introduced: 0, unchanged: 3 });
  });

  it('aggregates pool lines across datasets', () => {
    const m = read(path.join(ragDir, 'metrics.json'));
    expect(m.meta).to.include({ phase: 'phase5', num_samples: 9 });
    expect(m.meta.datasets).to.deep.equal(['TOY-A', 'TOY-B']);
    expect(m.overall.corrected).to.include({ char_edits: 3, ref_chars: 42 });
    const c = read(path.join(ragDir, 'comparison.json'));
    expect(c.overall.phase2_baseline.cer).to.equal(0.102564);
    expect(c.overall.phase5_corrected.cer).to.equal(0.051282);
    expect(c.overall.bootstrap.stratified_by_dataset).to.equal(true);
    expect(Object.keys(c.datasets)).to.deep.equal(['TOY-A', 'TOY-B']);
    expect(summary.overall).to.include({ num_samples: 9, n_paired: 8, zero_shot_cer: 0.102564, rag_cer: 0.051282 });
    expect(summary.datasets.map((d) => d.dataset)).to.deep.equal(['TOY-A', 'TOY-B']);
  });

  it('appends a summary to phase5.log', () => {
    const log = readFileSync(path.join(ragDir, 'phase5.log'), 'utf8');
    expect(log).to.match(/analyze: 2 dataset\(s\), 9 samples/);
    expect(log).to.match(/TOY-A: n=6 paired=6 CER ocr=0\.1250 phase2=0\.0938 phase5=0\.0625/);
  });
});

describe('analysis/analyze (options and inputs)', function () {
  this.timeout(60000);
  const roots: string[] = [];
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
  const fresh = () => {
    const t = copyToy();
    roots.push(t.root);
    return t;
  };

  it('writes byte-identical files when run twice on the same inputs (report included)', async () => {
    const { ragDir, baselineDir } = fresh();
    const opts = { ...toyOptions(ragDir, baselineDir), report: { png: true } };
    await analyzeDesignFiles(opts);
    const first = snapshot(ragDir);
    // A later wall clock must not matter: only the inputs' mtimes do.
    await new Promise((r) => setTimeout(r, 20));
    await analyzeDesignFiles(opts);
    const second = snapshot(ragDir);
    expect([...second.keys()].sort()).to.deep.equal([...first.keys()].sort());
    for (const [k, v] of first) expect(second.get(k)!.equals(v), k).to.equal(true);
    expect(first.has('report.html') && first.has('report.md') && first.has('charts/cer_by_arm.svg')).to.equal(true);
    const m = JSON.parse(first.get('metrics.json')!.toString());
    const newest = Math.max(
      ...['phase5/corrections.jsonl', 'phase5/inference_input.jsonl', 'phase2/corrections.jsonl'].map(
        (f) => statSync(path.join(ragDir, '..', f)).mtimeMs,
      ),
    );
    expect(m.meta.generated_at).to.equal(new Date(Math.floor(newest)).toISOString());
  });

  it('--no-error-analysis skips error_changes.json (and removes one left by an earlier run)', async () => {
    const { ragDir, baselineDir } = fresh();
    await analyzeDesignFiles(toyOptions(ragDir, baselineDir));
    expect(existsSync(path.join(ragDir, 'TOY-A', 'error_changes.json'))).to.equal(true);
    const s = await analyzeDesignFiles({ ...toyOptions(ragDir, baselineDir), errorAnalysis: false });
    expect(existsSync(path.join(ragDir, 'TOY-A', 'error_changes.json'))).to.equal(false);
    expect(existsSync(path.join(ragDir, 'error_changes.json'))).to.equal(false);
    expect(s.files.some((f) => f.includes('error_changes'))).to.equal(false);
    const r = read(path.join(ragDir, 'TOY-A', 'retrieval_analysis.json'));
    expect(r.retrieval_by_error_type.high_score_samples.by_error_category).to.equal(null);
  });

  it('analyses only the datasets asked for and names unknown ones', async () => {
    const { ragDir, baselineDir } = fresh();
    const s = await analyzeDesignFiles({ ...toyOptions(ragDir, baselineDir), datasets: ['TOY-B'] });
    expect(s.datasets.map((d) => d.dataset)).to.deep.equal(['TOY-B']);
    expect(existsSync(path.join(ragDir, 'TOY-A'))).to.equal(false);
    let err: Error | null = null;
    try {
      await analyzeDesignFiles({ ...toyOptions(ragDir, baselineDir), datasets: ['TOY-B', 'NOPE'] });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).to.match(/corrections\.jsonl: no records for dataset\(s\) NOPE/);
  });

  it('without a Phase 2 baseline writes null comparisons and says so', async () => {
    const { ragDir } = fresh();
    const s = await analyzeDesignFiles({ ...toyOptions(ragDir, null as unknown as string), baselineDir: null });
    const c = read(path.join(ragDir, 'TOY-A', 'comparison_vs_phase2.json'));
    expect(c.phase2_baseline).to.equal(null);
    expect(c.delta).to.equal(null);
    expect(c.phase5_corrected.cer).to.equal(0.0625);
    expect(c.interpretation).to.match(/No Phase 2 baseline/);
    expect(s.warnings.some((w) => /no zero_shot folder/.test(w))).to.equal(true);
  });

  it('names file, line and field of a malformed record', async () => {
    const { ragDir, baselineDir } = fresh();
    appendFileSync(path.join(ragDir, 'corrections.jsonl'), JSON.stringify({ sample_id: 'x', dataset: 'TOY-A', ocr_text: 'a' }) + '\n');
    let err: Error | null = null;
    try {
      await analyzeDesignFiles(toyOptions(ragDir, baselineDir));
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).to.match(/corrections\.jsonl:11: invalid corrections record: .*gt_text/);
  });

  it('without inference_input.jsonl reports no retrieval and still renders the report', async () => {
    const { ragDir, baselineDir } = fresh();
    rmSync(path.join(ragDir, 'inference_input.jsonl'));
    const s = await analyzeDesignFiles({ ...toyOptions(ragDir, baselineDir), report: {} });
    const r = read(path.join(ragDir, 'TOY-A', 'retrieval_analysis.json'));
    expect(r.retrieval_stats).to.include({ samples_with_any_retrieval: 0, samples_zero_results: 6, avg_top1_score: null });
    expect(r.retrieval_by_error_type.high_score_samples.n_samples).to.equal(0);
    expect(r.meta.samples_without_inference_input).to.equal(6);
    expect(s.warnings.some((w) => /inference_input\.jsonl not found/.test(w))).to.equal(true);
    expect(readFileSync(path.join(ragDir, 'report.md'), 'utf8')).to.match(
      /Not drawn \(no data\): delta_cer_by_score_bucket, score_histogram, era_distribution/,
    );
    expect(existsSync(path.join(ragDir, 'charts', 'score_histogram.svg'))).to.equal(false);
  });

  it('fails clearly when the corrections file is missing', async () => {
    const { ragDir, baselineDir } = fresh();
    rmSync(path.join(ragDir, 'corrections.jsonl'));
    let err: Error | null = null;
    try {
      await analyzeDesignFiles(toyOptions(ragDir, baselineDir));
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).to.match(/corrections\.jsonl not found: run the infer stage/);
  });

  it('reads a Phase 2 baseline from per-dataset splits and reports progress', async () => {
    const { ragDir, baselineDir } = fresh();
    const lines = readFileSync(path.join(baselineDir, 'corrections.jsonl'), 'utf8').trim().split('\n');
    rmSync(path.join(baselineDir, 'corrections.jsonl'));
    for (const ds of ['TOY-A', 'TOY-B']) {
      const dir = path.join(baselineDir, ds);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'corrections.jsonl'), lines.filter((l) => JSON.parse(l).dataset === ds).join('\n') + '\n');
    }
    const seen: Array<[number, number]> = [];
    const s = await analyzeDesignFiles({ ...toyOptions(ragDir, baselineDir), onProgress: (d, t) => seen.push([d, t]) });
    expect(s.datasets[0].zero_shot_cer).to.equal(0.09375);
    expect(seen[seen.length - 1]).to.deep.equal([9, 9]);
  });
});

describe('analysis/analyze on real OCR_GS lines', function () {
  this.timeout(120000);
  // The data README's raw figures (trim-only Levenshtein over the stored code points) are 13.5 / 6.1 / 24.5 /
  // 31.3 / 21.0 % CER; the stored text is partly decomposed (alef + U+0654 …), so in canonical form (NFC,
  // trim only; bench/normalization.ts prints both) the figures are these. IbnFaqih moves most: its gold and OCR
  // decompose different letters, which the code-point scoring counted as errors.
  const README: Record<string, { cer: number; wer: number }> = {
    'book_IbnAthir.Kamil': { cer: 0.1374, wer: 0.372 },
    'book_IbnFaqihHamadhani.Buldan': { cer: 0.0271, wer: 0.128 },
    'book_IbnQutayba.Adab': { cer: 0.2506, wer: 0.7629 },
    'book_Jahiz.Hayawan': { cer: 0.32, wer: 0.8296 },
    'book_Yacqubi.Tarikh': { cer: 0.2149, wer: 0.7246 },
  };
  let datasets: Record<string, Pair[]>;
  const roots: string[] = [];
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  before(function () {
    requireSharedData(this, 'ocr-gs');
    datasets = {};
    for (const book of Object.keys(README)) datasets[book] = readOcrGsBook(path.join(OCR_GS_ROOT, book));
  });

  const run = async (phase5: (p: Pair) => string, extra: Partial<AnalyzeOptions> = {}) => {
    const root = tmp();
    roots.push(root);
    const { ragDir, baselineDir } = writeStudy(root, {
      datasets,
      phase5: (p) => ({ corrected: phase5(p) }),
      phase2: (p) => ({ corrected: p.ocr }),
      retrieval: (_p, i) => ({ scores: [0.5 + (i % 50) / 100], sources: [{ source_uri: `x${i}`, idx: i, date: 250 }] }),
    });
    const s = await analyzeDesignFiles({
      ragDir,
      baselineDir,
      bootstrap: { iterations: 100, seed: 1 },
      report: false,
      progress: 'silent',
      ...extra,
    });
    return { s, ragDir };
  };

  it('identity corrections give the OCR CER/WER in canonical form (trim only) and ΔCER = 0', async () => {
    const { s, ragDir } = await run((p) => p.ocr, { collapseWhitespace: false });
    expect(s.datasets.map((d) => d.num_samples)).to.deep.equal([794, 1466, 790, 992, 1050]);
    for (const d of s.datasets) {
      expect(d.rag_cer, d.dataset).to.be.closeTo(README[d.dataset].cer, 1e-3);
      expect(d.rag_wer, d.dataset).to.be.closeTo(README[d.dataset].wer, 1e-3);
      expect(d.ocr_cer).to.equal(d.rag_cer);
      expect(d.delta_cer).to.equal(0);
      expect(d.delta_cer_ci95).to.deep.equal([0, 0]);
      const e = read(path.join(ragDir, d.dataset, 'error_changes.json'));
      expect(e.phase5.totals.fixed + e.phase5.totals.introduced).to.equal(0);
      expect(e.phase5.totals.unchanged).to.equal(e.phase5.totals.ocr_errors);
    }
    expect(s.overall.delta_cer).to.equal(0);
  });

  it('with the default whitespace collapse the figures stay within 1.5e-3 of the trim-only ones', async () => {
    const { s } = await run((p) => p.ocr);
    for (const d of s.datasets) {
      expect(d.rag_cer, d.dataset).to.be.closeTo(README[d.dataset].cer, 1.5e-3);
      expect(d.rag_wer, d.dataset).to.be.closeTo(README[d.dataset].wer, 1e-3);
    }
  });

  it('NFC(OCR) as the correction of an OCR-identity baseline: ΔCER exactly 0, CER exactly the OCR CER', async () => {
    const { s } = await run((p) => p.ocr.normalize('NFC'));
    expect(s.datasets).to.have.length(5);
    for (const d of s.datasets) {
      expect(d.delta_cer, d.dataset).to.equal(0);
      expect(d.rag_cer, d.dataset).to.equal(d.ocr_cer);
    }
  });

  it('gold corrections (NFC, while the stored gold is partly decomposed) give CER = WER = 0 and fix every OCR error', async () => {
    const { s, ragDir } = await run((p) => p.gt.normalize('NFC'));
    for (const d of s.datasets) {
      expect(d.rag_cer).to.equal(0);
      expect(d.rag_wer).to.equal(0);
      expect(d.delta_cer).to.be.below(0);
      expect(d.significant).to.equal(true);
      const e = read(path.join(ragDir, d.dataset, 'error_changes.json'));
      expect(e.phase5.totals.fixed).to.equal(e.phase5.totals.ocr_errors);
      expect(e.phase5.totals.corrected_errors).to.equal(0);
    }
  });
});
