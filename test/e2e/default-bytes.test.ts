/**
 * Without `study:` the arms are today's `rag` and `zero_shot`, at today's paths, with today's bytes. The
 * sha256 values below were recorded by running the same pipeline (test/helpers/default-pipeline.ts: real data,
 * real e5 model, a prompt-hash stand-in LLM) on commit 24a8c47, the last commit before study arms, through
 * that commit's per-condition infer activity; here it runs through the sharded infer that `phase5 run` uses.
 *
 * Not pinned, on purpose: report.md/html, lines.json and error_classes.json (the report gained sections and the
 * line explorer after 24a8c47), charts, and the build/export records (wall-clock times, absolute paths).
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ArmPlan, ShardRef } from '../../src/stages/infer-shards';
import { E5, requireModel } from '../embed/models';
import { type Activities, runDefaultPipeline, sha256 } from '../helpers/default-pipeline';
import { requireSharedData } from '../helpers/shared-data';
import type { StageInput } from '../../workflows/types';

/** Relative to the results dir → sha256 at 24a8c47. */
const PINNED: Record<string, string> = {
  'phase5/inference_input.jsonl': 'd585253d4fa25805a4fc1f7cef23d22169e97aee30ec0e961053b4f1de3d6d5a',
  'phase5/corrections.jsonl': 'a17346e36aaeb96f3e4812ca6f1bd795e992947260ced042636def898fa3cba9',
  'phase2/corrections.jsonl': '2ac0264fdeb8bd63a8753f39de96e8c25d79b212b3b2591d8ed3a87521d7eca9',
  'phase5/metrics.json': '27ca14acc61c4fbdefe69637c53297b2a87b14453bce30d6686b695156ef2841',
  'phase5/comparison.json': 'a34fe4e51262ebd49d81ac324dabd4a236a7c7bdfa0e2340388e652bb16b81ee',
  'phase5/error_changes.json': '4c420c925738b0e15a016aa7d30266edcc4370f83de73dce6d17e176b45cd052',
  'phase5/OCR_GS-IbnQutayba.Adab/metrics.json': '0d167c0400c0fd43f4e25b5169aa8513318f4e7ea5da70fecb8c18dcdcbfd569',
  'phase5/OCR_GS-IbnQutayba.Adab/comparison_vs_phase2.json': 'af5b7e5fd0b7888e9d0c183af66e5a12c06526f5c6fd7407d3ea29d0856fc7e2',
  'phase5/OCR_GS-IbnQutayba.Adab/retrieval_analysis.json': '5e87e887c0b58a3bebb3bb5187580af4b953ed1fa463270884e900431dfcd4f8',
  'phase5/OCR_GS-IbnQutayba.Adab/error_changes.json': '6479b7a5d89e7f02c9f8dd90f00532c467d028a3b3704fc596c47f9792441a3b',
  'phase5/OCR_GS-IbnQutayba.Adab/corrections.jsonl': '9120ddf83bb12479c6784717da1b2182186aa1b85ac5e13efe4e021aa424fd78',
  'phase5/OCR_GS-Jahiz.Hayawan/metrics.json': '8f121cad37c5cff1dbfb7522094e2ab3090760af1bfb37aea03a7efbf89219c2',
  'phase5/OCR_GS-Jahiz.Hayawan/comparison_vs_phase2.json': 'd28bbbd71ddd6cf1c6b120a71aed5ae5caa215481a6328d4bb698aa83a83d30f',
  'phase5/OCR_GS-Jahiz.Hayawan/retrieval_analysis.json': '921602fd17cd3a8546555b5ad66e325f58bbbfcccd2e65cb046b260a582abbd1',
  'phase5/OCR_GS-Jahiz.Hayawan/error_changes.json': 'a972636a7f77fe1b611b071fd2b7dbcd7b8b9f7f07b4640790bb827835f94a61',
  'phase5/OCR_GS-Jahiz.Hayawan/corrections.jsonl': '5837298f38109e3fd7fef36416c1b366439c4fd49d37997c7a7076a21488badf',
};

/** Every shard of an arm, dataset by dataset (as the infer workflow enumerates them). */
function shardRefs(arm: ArmPlan): ShardRef[] {
  return arm.plan.datasets.flatMap((d) => Array.from({ length: Math.ceil(d.lines / arm.shardSize) }, (_, index) => ({ dataset: d.dataset, index })));
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

  it('writes no arms/, study/ or exports/ folder', () => {
    for (const sub of ['arms', 'study', 'exports']) {
      expect(existsSync(path.join(dir, sub)), `${dir}/${sub}`).to.equal(false);
      expect(existsSync(path.join(dir, 'phase5', sub)), `${dir}/phase5/${sub}`).to.equal(false);
    }
  });
});
