/**
 * The failed-share validity rule (analysis/score/failed-share.ts), one for the design document's files and for
 * every arm of arms.json: an arm with more failed lines than `infer.max_failed_share` gets `invalid_reason`.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failedShareReason } from '../../../analysis/score/failed-share';
import { armsSection } from '../../../analysis/report/sections/arms';
import { analyzeArms } from '../../../analysis/study/arms';

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const LINES = { D1: ['a1', 'a2', 'a3', 'a4'], D2: ['b1', 'b2', 'b3', 'b4'] };

/** An arm whose lines in `failing` carry an error; every other line is corrected to the gold text. */
function writeArm(root: string, name: string, prompt: 'rag' | 'zero_shot', failing: string[]): void {
  const dir = path.join(root, 'arms', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'arm.json'), JSON.stringify({ name, prompt, retrieval: { mode: prompt === 'rag' ? 'dense' : 'none' } }));
  const rows = Object.entries(LINES).flatMap(([dataset, ids]) =>
    ids.map((id) => ({
      sample_id: id,
      dataset,
      ocr_text: 'كتت الرجل',
      gt_text: 'كتب الرجل',
      corrected_text: failing.includes(id) ? '' : 'كتب الرجل',
      error: failing.includes(id) ? 'timeout' : null,
      prompt_type: prompt,
      prompt_version: 'v1',
      model: 'm',
      raw_output: '',
      latency_ms: 1,
      prompt_tokens: 1,
      completion_tokens: 1,
    })),
  );
  writeFileSync(path.join(dir, 'corrections.jsonl'), jsonl(rows));
}

describe('analysis/score/failed-share: the validity rule of every comparison', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'failed-share-'));
    writeArm(root, 'zero_shot', 'zero_shot', []);
    writeArm(root, 'rag', 'rag', ['a2']);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('names every arm over the share, with its count and share; null when none is', () => {
    const counts = [
      { label: 'arm rag', failed: 2, lines: 100 },
      { label: 'arm zero_shot', failed: 1, lines: 100 },
    ];
    const reason = failedShareReason(counts, 0.01)!;
    expect(reason).to.match(/^arm rag: 2 of 100 lines failed \(2\.0%\), over infer\.max_failed_share 1\.0%/);
    expect(reason).to.not.include('zero_shot');
    expect(failedShareReason(counts, 0.02)).to.equal(null);
    expect(failedShareReason([{ label: 'x', failed: 0, lines: 0 }], 0)).to.equal(null);
  });

  it('marks an arm of arms.json not valid, pooled and in the dataset that failed, and warns once', async () => {
    const a = await analyzeArms({ resultsDir: root, baseline: 'zero_shot', bootstrap: { iterations: 20, seed: 1 }, write: false });
    const rag = a.arms.find((x) => x.name === 'rag')!;
    expect(rag.invalid_reason).to.match(/^arm rag: 1 of 8 lines failed \(12\.5%\)/);
    expect(rag.datasets.D1.invalid_reason).to.match(/^arm rag: 1 of 4 lines failed \(25\.0%\)/);
    expect(rag.datasets.D2).to.not.have.property('invalid_reason');
    expect(a.arms.find((x) => x.name === 'zero_shot')!).to.not.have.property('invalid_reason');
    expect(a.warnings.filter((w) => w.includes('lines failed'))).to.deep.equal([rag.invalid_reason]);
    // The failed line is still scored (as its OCR text): the figures stand beside the reason.
    expect(rag.failures).to.equal(1);
    expect(rag.cer).to.be.greaterThan(0);
    // The report names it before any figure of the Arms section.
    const blocks = armsSection(a, []);
    const at = blocks.findIndex((b) => b.kind === 'p' && b.text.startsWith('**Not valid'));
    expect(at).to.be.within(1, 2);
    expect(blocks[at + 1]).to.deep.equal({ kind: 'list', items: [rag.invalid_reason] });
  });

  it('under a larger infer.max_failed_share the same arm is valid', async () => {
    const a = await analyzeArms({
      resultsDir: root,
      baseline: 'zero_shot',
      bootstrap: { iterations: 20, seed: 1 },
      write: false,
      maxFailedShare: 0.3,
    });
    expect(a.arms.find((x) => x.name === 'rag')!).to.not.have.property('invalid_reason');
  });
});
