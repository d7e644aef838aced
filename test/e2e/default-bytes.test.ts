/**
 * Without `study:` the arms are the default `rag` and `zero_shot`, in arms/rag/ and arms/zero_shot/ (the files
 * 24a8c47 wrote in phase5/ and phase2/), with these bytes. The
 * sha256 values below were recorded by running the same pipeline (test/helpers/default-pipeline.ts: real data,
 * real e5 model, a prompt-hash stand-in LLM) on commit 24a8c47, the last commit before study arms, through
 * that commit's per-condition infer activity; here it runs through the sharded infer that `phase5 run` uses.
 *
 * Encoder floats depend on the CPU: onnxruntime picks its kernels by instruction set, so retrieval scores
 * differ in the 6th decimal between machines (24a8c47 itself wrote inference_input.jsonl as d585253d… on one
 * machine and 4b4982b0… on an AVX-512/AMX one; HEAD matches it on both). Files that hold scores are therefore
 * pinned by the sha256 of their canonical form — every number under a key naming a score replaced by a marker,
 * so contexts, sources, order and every other value stay pinned — plus the count and sum of those scores
 * (within 1e-4). Files without scores are pinned byte for byte.
 *
 * The analysis documents (metrics, comparisons, error changes, retrieval analysis) are pinned as the canonical-text
 * scoring writes them: the OCR_GS gold and OCR files are partly decomposed (alef + U+0654 …), and every text is now
 * compared in NFC (src/text/canonical.ts), so their CERs moved (e.g. the Adab OCR CER 23.96 → 24.53 %: fewer gold
 * characters, a decomposed hamza no longer two edits) and the profiles list and labels were added; lines that
 * changed OCR-CER band moved their top-1 scores with them (the score sums of comparison.json). The same
 * inputs made NFC give every figure of 24a8c47's documents unchanged. The corrections keep 24a8c47's bytes; the
 * inference input is 24a8c47's with each rag record's hit provenance added (`retrieval_sources[].provenance` and
 * `gold_in_context`, docs/outputs.md#inference_inputjsonl, written for every retrieval mode): the same contexts,
 * sources, order and scores, so the same prompts.
 * The three comparison files are pinned as the block statistics (docs/statistics.md) write them: their `bootstrap`
 * block (CIs from a block bootstrap over clusters of lines, `p_value` from the block permutation test, `se`, `mde`,
 * `clusters`), and the interpretation sentence that quotes its CI, differ from 24a8c47's per-line bootstrap.
 * With 12 lines per book (one cluster each, 2 pooled) they are below `analysis.min_clusters` (docs/statistics.md
 * "Too few clusters"): the estimates stand alone, their CI, p, SE and detectable effect null with `reason`, and the
 * sentence gives the reason instead of a CI. Their `by_ocr_cer_band` uses the analysis's one band scheme
 * (0–2 / 2–5 / 5–10 / 10–20 / > 20 %, analysis/score/bands.ts) where 24a8c47 had four bands (< 5 / 5–15 / 15–30 /
 * > 30 %): the keys, the lines in each band and the bands' mean top-1 scores (fewer non-empty bands: the score
 * count and sum) differ; every other figure in them is 24a8c47's.
 *
 * retrieval_analysis.json's `by_score_bucket` entries carry `delta_cer_ci95`, `delta_cer_p_value` and
 * `delta_cer_reason` beside 24a8c47's figures (the one score-band computation of arms.json, analysis/stats/score-bands.ts);
 * here all null but the `0.8+` buckets' reason ("too few clusters: 1 (at least 10)"); every other figure is unchanged.
 * Not pinned, on purpose: report.md/html (the one report, in study/), lines.json and error_classes.json (the report gained sections and the
 * line explorer after 24a8c47), charts, and the build/export records (wall-clock times, absolute paths).
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ArmPlan, ShardRef } from '../../src/stages/infer/shards';
import { E5, requireModel } from '../embed/models';
import { type Activities, runDefaultPipeline, sha256 } from '../helpers/default-pipeline';
import { requireSharedData } from '../helpers/shared-data';
import type { StageInput } from '../../workflows/types';

/** Relative to the results dir → sha256 of the bytes (24a8c47's; the analysis documents as canonical text scores them). */
const PINNED: Record<string, string> = {
  'arms/rag/corrections.jsonl': 'a17346e36aaeb96f3e4812ca6f1bd795e992947260ced042636def898fa3cba9',
  'arms/zero_shot/corrections.jsonl': '2ac0264fdeb8bd63a8753f39de96e8c25d79b212b3b2591d8ed3a87521d7eca9',
  'arms/rag/error_changes.json': '1ed9c417f61c46437d749e277dd04cb18931e2e5d5a31a1dbff4327039932190',
  'arms/rag/OCR_GS-IbnQutayba.Adab/metrics.json': '1bcf364e96c61370cb7665d7c329477c9047e21d1c65f37a46d3326c6bfd4e1a',
  'arms/rag/OCR_GS-IbnQutayba.Adab/error_changes.json': '7b210498010f6eb1e8da1defb986a4a85a24b6cd7cce3fed38963cb301e875d7',
  'arms/rag/OCR_GS-IbnQutayba.Adab/corrections.jsonl': '9120ddf83bb12479c6784717da1b2182186aa1b85ac5e13efe4e021aa424fd78',
  'arms/rag/OCR_GS-Jahiz.Hayawan/metrics.json': '470a82d21f56b9783582b8d8abfbcfa4ef9e3deff77c07bcd46349e294d4c6d2',
  'arms/rag/OCR_GS-Jahiz.Hayawan/error_changes.json': '0d150aaa41701bf05394ff9031b25f1a5b1e6cada9bf61707a2b72465c529dd4',
  'arms/rag/OCR_GS-Jahiz.Hayawan/corrections.jsonl': '5837298f38109e3fd7fef36416c1b366439c4fd49d37997c7a7076a21488badf',
};

/** Files holding retrieval scores → sha256 of the canonical form (24a8c47's, with hit provenance), and the scores' count and sum. */
const PINNED_WITH_SCORES: Record<string, { sha256: string; scores: number; sum: number }> = {
  'arms/rag/inference_input.jsonl': {
    sha256: '7d30fdc056e327d81effa10d1b10ac9a50f765e6058bf798c87acd2cf8982097',
    scores: 72,
    sum: 64.405531,
  },
  'arms/rag/metrics.json': { sha256: '0d36dc252cf0fd0be300aa8e2d415e9b277ad4798c28c0d9299b5879e21dd93e', scores: 2, sum: 1.797159 },
  'arms/rag/comparison.json': { sha256: '6383be35d7653635eeb0612ba30a29673f08160157e4219e3c723c818cdb363f', scores: 2, sum: 1.783919 },
  'arms/rag/OCR_GS-IbnQutayba.Adab/comparison_vs_phase2.json': {
    sha256: '4effd4c450a420ca9b84b5dff12fc8d0855f7208f65c02a19dc5e0efe7e15a54',
    scores: 2,
    sum: 1.777936,
  },
  'arms/rag/OCR_GS-IbnQutayba.Adab/retrieval_analysis.json': {
    sha256: 'fa96934c48d2901987459a09ea57e0c88f9fad6ea2d6d28cf19e47dbf50761f4',
    scores: 10,
    sum: 8.917389,
  },
  'arms/rag/OCR_GS-Jahiz.Hayawan/comparison_vs_phase2.json': {
    sha256: 'b05e1e75dd951780ceb2201624e10df195bad2ed6f685c216f4bd72f5fc7ca17',
    scores: 1,
    sum: 0.904889,
  },
  'arms/rag/OCR_GS-Jahiz.Hayawan/retrieval_analysis.json': {
    sha256: 'e17481a128404d5cdfc166e30c8d7c705a817b13c4b78a9dbbede5cce5128660',
    scores: 10,
    sum: 9.036026,
  },
};

const SCORE_KEY = /score/i;

/** A JSON value with every number under a score-named key replaced by 'score' (collected into `scores`). */
function maskScores(value: unknown, key: string, scores: number[]): unknown {
  if (typeof value === 'number' && SCORE_KEY.test(key)) {
    scores.push(value);
    return 'score';
  }
  if (Array.isArray(value)) return value.map((v) => maskScores(v, key, scores));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskScores(v, k, scores)]));
  return value;
}

/** sha256 of a JSON or JSONL file's canonical form (scores masked, one document a line), and the scores. */
function canonicalScores(file: string): { sha256: string; scores: number[] } {
  const text = readFileSync(file, 'utf8');
  const docs = file.endsWith('.jsonl')
    ? text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as unknown)
    : [JSON.parse(text) as unknown];
  const scores: number[] = [];
  const canon = docs.map((d) => JSON.stringify(maskScores(d, '', scores))).join('\n');
  return { sha256: createHash('sha256').update(canon).digest('hex'), scores };
}

/** Every shard of an arm, dataset by dataset (as the infer workflow enumerates them). */
function shardRefs(arm: ArmPlan): ShardRef[] {
  return arm.plan.datasets.flatMap((d) =>
    Array.from({ length: Math.ceil(d.lines / arm.shardSize) }, (_, index) => ({ dataset: d.dataset, index })),
  );
}

/** The sharded infer of `phase5 run`: plan, every shard (newest first, so the merge must restore the order), merge. */
async function shardedInfer(acts: Activities, input: StageInput): Promise<void> {
  const arms = await acts.planInfer(input);
  expect(arms.map((a) => a.arm)).to.deep.equal(['rag', 'zero_shot']);
  for (const arm of arms) {
    for (const shard of shardRefs(arm).reverse()) await acts.inferShard({ input, arm, shard });
    await acts.mergeInferArm({ input, arm });
  }
}

describe('default config (no study:): outputs byte-identical to before study arms', function () {
  this.timeout(300000);
  let tmp: string;
  let dir: string;

  before(async function () {
    requireSharedData(this, 'openiti');
    requireSharedData(this, 'ocr-gs');
    requireModel(this, E5);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'default-bytes-'));
    dir = path.join(tmp, 'results');
    await runDefaultPipeline(dir, shardedInfer);
  });
  after(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  for (const [rel, hash] of Object.entries(PINNED)) {
    it(`${rel} has the sha256 recorded at 24a8c47`, () => {
      expect(sha256(path.join(dir, rel)), rel).to.equal(hash);
    });
  }

  for (const [rel, pin] of Object.entries(PINNED_WITH_SCORES)) {
    it(`${rel} equals 24a8c47's but for the encoder's last float digits (canonical sha256, score count and sum)`, () => {
      const got = canonicalScores(path.join(dir, rel));
      expect(got.sha256, rel).to.equal(pin.sha256);
      expect(got.scores, rel).to.have.length(pin.scores);
      expect(
        got.scores.reduce((a, b) => a + b, 0),
        rel,
      ).to.be.closeTo(pin.sum, 1e-4);
    });
  }

  it('lays the files out by arm and by settings: no phase5/ or phase2/ folder, study/ holds the arms analysis and the one report, no arm.json', () => {
    expect(readdirSync(dir).sort()).to.deep.equal(['arms', 'corpora', 'exports', 'study', 'study_manifest.json']);
    expect(readdirSync(path.join(dir, 'arms')).sort()).to.deep.equal(['rag', 'zero_shot']);
    for (const arm of ['rag', 'zero_shot']) expect(existsSync(path.join(dir, 'arms', arm, 'arm.json')), arm).to.equal(false);
    expect(readdirSync(path.join(dir, 'study')).sort()).to.deep.equal([
      'arms.json',
      'charts',
      'lines.csv.gz',
      'lines.parquet',
      'paper',
      'provenance.json',
      'report-lines',
      'report.html',
      'report.md',
    ]);
    expect(existsSync(path.join(dir, 'arms', 'zero_shot', 'metrics.json')), 'no per-arm metrics.json beside the design document').to.equal(
      false,
    );
    expect(existsSync(path.join(dir, 'arms', 'rag', 'report.html')), 'no second report').to.equal(false);
    const [exported] = readdirSync(path.join(dir, 'exports'));
    const arms = JSON.parse(readFileSync(path.join(dir, 'study', 'arms.json'), 'utf8')) as {
      baseline: string;
      arms: Array<{ name: string; cer: number; retrieval: Record<string, unknown> | null }>;
    };
    expect(arms.baseline).to.equal('zero_shot');
    expect(arms.arms.map((a) => a.name)).to.deep.equal(['rag', 'zero_shot']);
    // The fingerprint hashes the index manifest (build time included): left out so two runs' arms.json agree.
    expect(arms.arms[0].retrieval).to.include({ mode: 'dense', fingerprint: null });
    expect(arms.arms[1].retrieval).to.equal(null);
    // One scorer: the arms analysis and the design document's comparison agree on both arms' CER (every line is paired).
    const overall = (
      JSON.parse(readFileSync(path.join(dir, 'arms', 'rag', 'comparison.json'), 'utf8')) as { overall: Record<string, { cer: number }> }
    ).overall;
    expect(arms.arms.map((a) => a.cer)).to.deep.equal([overall.phase5_corrected.cer, overall.phase2_baseline.cer]);
    const target = path.join(dir, 'exports', exported, 'inference_input.jsonl');
    for (const arm of ['rag', 'zero_shot'])
      expect(realpathSync(path.join(dir, 'arms', arm, 'inference_input.jsonl')), arm).to.equal(realpathSync(target));
  });
});
