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

const { analyzeResults, buildCorpus, buildIndex, exportShard, mergeExport, planExport } = createStageCalls();

/** The instant every run's analysis inputs are stamped with. */
const INPUTS_AS_OF = new Date('2024-03-01T12:00:00.000Z');

/** Outputs of a run that are not part of the comparison, and why. */
const NOT_COMPARED: Record<string, string> = {
  'phase5.log': 'append-only journal of runs, stamped with the wall clock',
};

/**
 * Build and export records: provenance that legitimately differs between two runs (absolute paths of the
 * run, the build's wall-clock time and duration, and the export fingerprint, which hashes the index
 * manifest and so its created_at). They are compared with those fields blanked; everything else in them
 * must match.
 */
const RECORDS = /^(corpus\.jsonl\.build\.json|index\.manifest\.json|export\/.*plan\.json|export\/.*export\.json|export\/.*\.done\.json)$/;
const VOLATILE_KEYS = new Set(['created_at', 'durationMs', 'fingerprint', 'written_at']);

/**
 * The export lives under its settings' fingerprint (`export/<fingerprint>/`, docs/outputs.md), which hashes the
 * index manifest and so differs between the runs: files are listed with it as `<fingerprint>` and read from each
 * run's own folder.
 */
const FINGERPRINT_DIR = /^export\/[0-9a-f]{16}\//;
const FINGERPRINT = 'export/<fingerprint>/';

function inRun(phase5: string, rel: string): string {
  if (!rel.startsWith(FINGERPRINT)) return path.join(phase5, rel);
  const dirs = readdirSync(path.join(phase5, 'export')).filter((d) => /^[0-9a-f]{16}$/.test(d));
  expect(dirs, `one export fingerprint folder in ${phase5}`).to.have.length(1);
  return path.join(phase5, 'export', dirs[0], rel.slice(FINGERPRINT.length));
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
function corrections(records: InferenceInputRecord[], condition: 'rag' | 'zero_shot'): CorrectionRecord[] {
  return records.map((r, i) => {
    // RAG "fixes" every third line and garbles every fifth; the baseline returns the OCR text.
    const corrected = condition === 'zero_shot' ? r.ocr_text : i % 3 === 0 ? r.gt_text : i % 5 === 0 ? r.ocr_text.slice(1) : r.ocr_text;
    return {
      sample_id: r.sample_id,
      dataset: r.dataset,
      prompt_type: condition === 'zero_shot' ? 'zero_shot' : r.prompt_type,
      prompt_version: condition === 'zero_shot' ? 'v1' : r.prompt_version,
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
  phase5: string;
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

  const phase5 = path.join(dir, 'phase5');
  const records = await readJsonlAll<InferenceInputRecord>(merged.path);
  const files = {
    input: merged.path,
    rag: path.join(phase5, 'corrections.jsonl'),
    zeroShot: path.join(dir, 'phase2', 'corrections.jsonl'),
  };
  writeJsonlAtomic(files.rag, corrections(records, 'rag'));
  writeJsonlAtomic(files.zeroShot, corrections(records, 'zero_shot'));
  for (const f of Object.values(files)) utimesSync(f, INPUTS_AS_OF, INPUTS_AS_OF);

  const analysis = await analyzeResults(input);
  const metrics = JSON.parse(readFileSync(path.join(phase5, 'metrics.json'), 'utf8')) as { meta?: { generated_at?: string } };
  expect(analysis.files).to.be.greaterThan(5);
  return { dir, phase5, corpusSentences: corpus.sentences, generatedAt: String(metrics.meta?.generated_at) };
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
    const fa = readFileSync(inRun(a.phase5, rel));
    const fb = readFileSync(inRun(b.phase5, rel));
    expect(fa.length, `${rel} is empty`).to.be.greaterThan(0);
    expect(fa.equals(fb), `${rel} differs between the two runs`).to.equal(true);
  };

  it('corpus.jsonl is byte-identical (and holds the sentences asked for)', () => {
    const lines = readFileSync(path.join(a.phase5, 'corpus.jsonl'), 'utf8').trim().split('\n');
    expect(lines).to.have.length(a.corpusSentences);
    expect(a.corpusSentences).to.equal(configFor(tmp).corpus.max_sentences);
    same('corpus.jsonl');
  });

  it('the index vectors and sentence table are byte-identical; the manifest differs only in provenance', () => {
    same('index.usearch');
    same('index.usearch.sentences.jsonl');
    const m = normalizedRecord(path.join(a.phase5, 'index.manifest.json'), a.dir);
    expect(m).to.have.nested.property('index.count', a.corpusSentences);
    expect(normalizedRecord(path.join(b.phase5, 'index.manifest.json'), b.dir)).to.deep.equal(m);
  });

  it('inference_input.jsonl and the export shards are byte-identical, with retrieval context for the Arabic lines', async () => {
    same('inference_input.jsonl');
    const shards = listFiles(a.phase5).filter((f) => f.startsWith('export/') && f.endsWith('.jsonl'));
    expect(shards.length).to.be.at.least(3);
    for (const f of shards) same(f);
    const recs = await readJsonlAll<InferenceInputRecord>(path.join(a.phase5, 'inference_input.jsonl'));
    const datasets = Object.keys(configFor(tmp).datasets);
    expect(recs.length)
      .to.be.greaterThan(0)
      .and.at.most(LIMIT * datasets.length);
    expect([...new Set(recs.map((r) => r.dataset))]).to.deep.equal(datasets);
    const rag = recs.filter((r) => r.prompt_type === 'rag');
    expect(rag.length).to.be.greaterThan(recs.length / 2);
    expect(rag.every((r) => r.retrieved_k === 3 && r.retrieval_context.length > 0)).to.equal(true);
  });

  it('every analysis output (JSON documents, per-dataset splits, report, charts) is byte-identical', () => {
    const filesA = listFiles(a.phase5);
    expect(listFiles(b.phase5)).to.deep.equal(filesA);
    for (const must of ['metrics.json', 'comparison.json', 'error_changes.json', 'report.md', 'report.html'])
      expect(filesA).to.include(must);
    for (const ds of Object.keys(configFor(tmp).datasets)) {
      for (const f of ['metrics.json', 'comparison_vs_phase2.json', 'retrieval_analysis.json', 'error_changes.json', 'corrections.jsonl']) {
        expect(filesA).to.include(`${ds}/${f}`);
      }
    }
    expect(filesA.some((f) => f.startsWith('charts/') && f.endsWith('.svg'))).to.equal(true);
    for (const f of filesA) {
      if (f in NOT_COMPARED || RECORDS.test(f)) continue;
      same(f);
    }
  });

  it('build and export records match apart from paths, wall-clock times and the manifest-derived fingerprint', () => {
    const records = listFiles(a.phase5).filter((f) => RECORDS.test(f));
    expect(records).to.include.members(['corpus.jsonl.build.json', 'index.manifest.json', `${FINGERPRINT}plan.json`]);
    for (const f of records) {
      expect(normalizedRecord(inRun(b.phase5, f), b.dir), f).to.deep.equal(normalizedRecord(inRun(a.phase5, f), a.dir));
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
    const other = readFileSync(path.join(dir, 'phase5', 'corpus.jsonl'));
    expect(other.length).to.be.greaterThan(0);
    expect(other.equals(readFileSync(path.join(a.phase5, 'corpus.jsonl')))).to.equal(false);
  });
});
