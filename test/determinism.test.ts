/**
 * End to end determinism: the same config and seed, run twice into two separate results dirs, gives
 * byte-identical corpus.jsonl, index, inference_input.jsonl and analysis files (JSON documents, report,
 * charts). The stages run by calling the activity functions directly (they work outside Temporal).
 *
 * Inference is not part of it (an LLM backend need not be deterministic): each run gets the same
 * hand-made corrections derived from its own inference_input.jsonl. The analysis stamps `generated_at`
 * with the newest input file's mtime (by design: "inputs as of"), so each run pins its inputs' mtimes to
 * the same instant — two runs are the same inputs only if their inputs carry the same time.
 *
 * Data: the real OpenITI slice + two OCR_GS books when ../shared/data is present, else the fixture corpus and
 * the fixture OCR dataset. Model: all-MiniLM-L6-v2 (skips with a message when setup has not installed it).
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { InferenceInputRecord } from '../src/llm/records';
import { parseConfig } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { readJsonlAll, writeJsonlAtomic } from '../src/io/jsonl';
import type { CorrectionRecord } from '../src/llm/records';
import type { StageInput } from '../workflows/types';
import { MINILM, requireModel } from './embed/models';
import { FIXTURES, OCR_GS_ROOT, OPENITI_ROOT } from './helpers/shared-data';
import { createStageCalls } from './helpers/stage-calls';
import { indexFiles } from '../src/index/manifest';
import { stagePaths } from '../src/stages/study/layout';

const { analyzeResults, buildCorpus, buildIndex, exportShard, mergeExport, planExport } = createStageCalls();

/** The instant every run's analysis inputs are stamped with. */
const INPUTS_AS_OF = new Date('2024-03-01T12:00:00.000Z');

/** Outputs of a run that are not part of the comparison, and why. */
const NOT_COMPARED: Record<string, string> = {
  'arms/rag/phase5.log': 'append-only journal of runs, stamped with the wall clock',
};

/**
 * Build and export records: provenance that legitimately differs between two runs (absolute paths of the
 * run, the build's wall-clock time and duration, and the export fingerprint, which hashes the index
 * manifest and so its created_at). They are compared with those fields blanked; everything else in them
 * must match.
 */
const RECORDS =
  /^(corpora\/[0-9a-f]{16}\/(corpus\.jsonl\.build\.json|index-[0-9a-f]{16}\.manifest\.json)|exports\/.*plan\.json|exports\/.*export\.json|exports\/.*\.done\.json)$/;
const VOLATILE_KEYS = new Set(['created_at', 'durationMs', 'fingerprint', 'written_at']);

/**
 * The export lives under its settings' fingerprint (`export/<fingerprint>/`, docs/outputs.md), which hashes the
 * index manifest and so differs between the runs: files are listed with it as `<fingerprint>` and read from each
 * run's own folder.
 */
const FINGERPRINT_DIR = /^exports\/[0-9a-f]{16}\//;
const FINGERPRINT = 'exports/<fingerprint>/';

function inRun(root: string, rel: string): string {
  if (!rel.startsWith(FINGERPRINT)) return path.join(root, rel);
  const dirs = readdirSync(path.join(root, 'exports')).filter((d) => /^[0-9a-f]{16}$/.test(d));
  expect(dirs, `one export fingerprint folder in ${root}`).to.have.length(1);
  return path.join(root, 'exports', dirs[0], rel.slice(FINGERPRINT.length));
}

/** The corpus and index of a run, relative to its results dir (the same in every run: the same settings). */
function corpusFiles(root: string, seed = 42): { corpus: string; index: string; manifest: string } {
  const p = stagePaths(configFor(root, seed), {});
  const rel = (f: string) => path.relative(root, f);
  return { corpus: rel(p.corpus), index: rel(p.index), manifest: rel(indexFiles(p.index).manifest) };
}

function normalizedRecord(file: string, runDir: string): unknown {
  const text = readFileSync(file, 'utf8').split(runDir).join('<run>');
  return JSON.parse(text, (k, v) => (VOLATILE_KEYS.has(k) ? '<volatile>' : v));
}

const REAL = existsSync(OPENITI_ROOT) && existsSync(OCR_GS_ROOT);

function configFor(resultsDir: string, seed = 42): Config {
  const data = REAL
    ? {
        openiti_root: OPENITI_ROOT,
        max_sentences: 300,
        datasets: {
          'OCR_GS-IbnQutayba.Adab': {
            type: 'paired_dir',
            path: path.join(OCR_GS_ROOT, 'book_IbnQutayba.Adab'),
            source_pattern: '0276IbnQutaybaDinawari.AdabKatib*',
          },
          'OCR_GS-Jahiz.Hayawan': { type: 'paired_dir', path: path.join(OCR_GS_ROOT, 'book_Jahiz.Hayawan') },
        },
      }
    : {
        openiti_root: path.join(FIXTURES, 'openiti', 'corpus'),
        max_sentences: 120,
        datasets: { 'fixture-ocr': { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
      };
  return parseConfig(
    {
      paths: { results_dir: resultsDir },
      data: { openiti_root: data.openiti_root },
      corpus: { max_sentences: data.max_sentences, seed },
      index: { batch_size: 64 },
      // Several shards per dataset, so the merge order is part of what is compared.
      export: { shard_size: 4, query_batch_size: 16, checkpoint_every: 3 },
      rag: {
        embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
        embedding: { model_dir: MINILM.dir, query_prefix: '', passage_prefix: '', threads: 2 },
      },
      datasets: data.datasets,
      analysis: { bootstrap_iterations: 200, bootstrap_seed: 7 },
    },
    'test/determinism',
    { env: {} },
  );
}

const LIMIT = 20;

/** Corrections as an LLM might have written them, derived only from the record (no randomness). */
function corrections(records: InferenceInputRecord[], arm: 'rag' | 'zero_shot'): CorrectionRecord[] {
  return records.map((r, i) => {
    // RAG "fixes" every third line and garbles every fifth; the baseline returns the OCR text.
    const corrected = arm === 'zero_shot' ? r.ocr_text : i % 3 === 0 ? r.gt_text : i % 5 === 0 ? r.ocr_text.slice(1) : r.ocr_text;
    return {
      sample_id: r.sample_id,
      dataset: r.dataset,
      prompt_type: arm === 'zero_shot' ? 'zero_shot' : r.prompt_type,
      prompt_version: arm === 'zero_shot' ? 'v1' : r.prompt_version,
      model: 'determinism-test',
      ocr_text: r.ocr_text,
      gt_text: r.gt_text,
      corrected_text: corrected,
      raw_output: corrected,
      latency_ms: null,
      prompt_tokens: null,
      completion_tokens: null,
      error: null,
    };
  });
}

interface RunResult {
  dir: string;
  corpusSentences: number;
  generatedAt: string;
}

/** build → export → (corrections) → analyze into `dir`, calling the activities directly. */
async function runPipeline(dir: string): Promise<RunResult> {
  const input: StageInput = { run: 'determinism', config: configFor(dir), options: { limit: LIMIT }, force: false };
  const corpus = await buildCorpus(input);
  await buildIndex(input);
  const plan = await planExport(input);
  for (const shard of plan.datasets.flatMap((d) => d.shards)) await exportShard({ input, shard });
  const merged = await mergeExport({ input, plan });

  const rag = path.join(dir, 'arms', 'rag');
  const records = await readJsonlAll<InferenceInputRecord>(merged.path);
  const files = {
    input: merged.path,
    rag: path.join(rag, 'corrections.jsonl'),
    zeroShot: path.join(dir, 'arms', 'zero_shot', 'corrections.jsonl'),
  };
  writeJsonlAtomic(files.rag, corrections(records, 'rag'));
  writeJsonlAtomic(files.zeroShot, corrections(records, 'zero_shot'));
  for (const f of Object.values(files)) utimesSync(f, INPUTS_AS_OF, INPUTS_AS_OF);

  const analysis = await analyzeResults(input);
  const metrics = JSON.parse(readFileSync(path.join(rag, 'metrics.json'), 'utf8')) as { meta?: { generated_at?: string } };
  expect(analysis.files).to.be.greaterThan(5);
  return { dir, corpusSentences: corpus.sentences, generatedAt: String(metrics.meta?.generated_at) };
}

/** Every file under `root`, relative, sorted. */
function listFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) out.push(...listFiles(root, r));
    else out.push(r.replace(FINGERPRINT_DIR, FINGERPRINT));
  }
  return out.sort();
}

describe('determinism: two runs with the same config and seed', function () {
  this.timeout(240000);
  let tmp: string;
  let a: RunResult;
  let b: RunResult;

  before(async function () {
    requireModel(this, MINILM);
    if (!REAL) console.log('    (shared data not found: running on the fixture corpus and fixture OCR dataset)');
    tmp = mkdtempSync(path.join(os.tmpdir(), 'determinism-'));
    a = await runPipeline(path.join(tmp, 'a'));
    b = await runPipeline(path.join(tmp, 'b'));
  });
  after(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const same = (rel: string) => {
    const fa = readFileSync(inRun(a.dir, rel));
    const fb = readFileSync(inRun(b.dir, rel));
    expect(fa.length, `${rel} is empty`).to.be.greaterThan(0);
    expect(fa.equals(fb), `${rel} differs between the two runs`).to.equal(true);
  };

  it('corpus.jsonl is byte-identical (and holds the sentences asked for)', () => {
    const lines = readFileSync(path.join(a.dir, corpusFiles(a.dir).corpus), 'utf8')
      .trim()
      .split('\n');
    expect(lines).to.have.length(a.corpusSentences);
    expect(a.corpusSentences).to.equal(configFor(tmp).corpus.max_sentences);
    same(corpusFiles(a.dir).corpus);
  });

  it('the index vectors and sentence table are byte-identical; the manifest differs only in provenance', () => {
    const { index, manifest } = corpusFiles(a.dir);
    same(index);
    same(`${index}.sentences.jsonl`);
    const m = normalizedRecord(path.join(a.dir, manifest), a.dir);
    expect(m).to.have.nested.property('index.count', a.corpusSentences);
    expect(normalizedRecord(path.join(b.dir, manifest), b.dir)).to.deep.equal(m);
  });

  it('inference_input.jsonl and the export shards are byte-identical, with retrieval context for the Arabic lines', async () => {
    same('arms/rag/inference_input.jsonl');
    const shards = listFiles(a.dir).filter((f) => f.startsWith('exports/') && f.endsWith('.jsonl'));
    expect(shards.length).to.be.at.least(3);
    for (const f of shards) same(f);
    const recs = await readJsonlAll<InferenceInputRecord>(path.join(a.dir, 'arms', 'rag', 'inference_input.jsonl'));
    const datasets = Object.keys(configFor(tmp).datasets);
    expect(recs.length)
      .to.be.greaterThan(0)
      .and.at.most(LIMIT * datasets.length);
    expect([...new Set(recs.map((r) => r.dataset))]).to.deep.equal(datasets);
    const rag = recs.filter((r) => r.prompt_type === 'rag');
    expect(rag.length).to.be.greaterThan(recs.length / 2);
    expect(rag.every((r) => r.retrieved_k === 3 && r.retrieval_context.length > 0)).to.equal(true);
  });

  it('every analysis output (JSON documents, per-dataset splits, the study report) is byte-identical', () => {
    const filesA = listFiles(a.dir);
    expect(listFiles(b.dir)).to.deep.equal(filesA);
    for (const must of ['metrics.json', 'comparison.json', 'error_changes.json']) expect(filesA).to.include(`arms/rag/${must}`);
    for (const ds of Object.keys(configFor(tmp).datasets)) {
      for (const f of ['metrics.json', 'comparison_vs_phase2.json', 'retrieval_analysis.json', 'error_changes.json', 'corrections.jsonl']) {
        expect(filesA).to.include(`arms/rag/${ds}/${f}`);
      }
    }
    for (const f of filesA) {
      if (f in NOT_COMPARED || RECORDS.test(f)) continue;
      same(f);
    }
  });

  it('the one report of the results dir (study/: report, charts, Lines side files) is byte-identical', () => {
    const study = (r: RunResult) => path.join(r.dir, 'study');
    const filesA = listFiles(study(a));
    expect(listFiles(study(b))).to.deep.equal(filesA);
    expect(filesA).to.include.members(['report.md', 'report.html']);
    expect(filesA.some((f) => f.startsWith('charts/') && f.endsWith('.svg'))).to.equal(true);
    for (const f of filesA) {
      const fa = readFileSync(path.join(study(a), f));
      expect(fa.equals(readFileSync(path.join(study(b), f))), `study/${f} differs between the two runs`).to.equal(true);
    }
  });

  it('build and export records match apart from paths, wall-clock times and the manifest-derived fingerprint', () => {
    const records = listFiles(a.dir).filter((f) => RECORDS.test(f));
    const { corpus, manifest } = corpusFiles(a.dir);
    expect(records).to.include.members([`${corpus}.build.json`, manifest, `${FINGERPRINT}plan.json`]);
    for (const f of records) {
      expect(normalizedRecord(inRun(b.dir, f), b.dir), f).to.deep.equal(normalizedRecord(inRun(a.dir, f), a.dir));
    }
  });

  it('generated_at is the pinned time of the inputs, not the wall clock', () => {
    expect(a.generatedAt).to.equal(INPUTS_AS_OF.toISOString());
    expect(b.generatedAt).to.equal(a.generatedAt);
  });

  it('a different corpus seed gives a different corpus.jsonl (the comparison can fail)', async () => {
    const dir = path.join(tmp, 'other-seed');
    const input: StageInput = { run: 'determinism', config: configFor(dir, 43), options: {}, force: false };
    await buildCorpus(input);
    const other = readFileSync(path.join(dir, corpusFiles(dir, 43).corpus));
    expect(other.length).to.be.greaterThan(0);
    expect(other.equals(readFileSync(path.join(a.dir, corpusFiles(a.dir).corpus)))).to.equal(false);
  });
});
