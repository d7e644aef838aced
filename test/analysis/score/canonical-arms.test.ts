/**
 * The arms analysis on real OCR_GS lines (Ibn Qutayba, 790 lines, partly decomposed text) scores in canonical
 * form: an arm that writes NFC(OCR) is exactly the OCR-identity baseline, an arm that writes NFC(gold) has CER 0,
 * under the primary profile and in arms.json's per-profile list; raw_cer is the output before the guard only.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeArms, type ArmsAnalysis } from '../../../analysis/study/arms';
import { OCR_GS_ROOT, requireSharedData } from '../../helpers/shared-data';
import { loadOcrGsLines, type OcrGsLine } from '../../helpers/ocr-gs-lines';
import { armCorrectionRecord } from '../../helpers/records';

const BOOK = 'IbnQutayba.Adab';
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

function writeArm(
  root: string,
  name: string,
  lines: OcrGsLine[],
  out: (l: OcrGsLine) => { corrected: string; raw?: string; guard?: string },
): void {
  const dir = path.join(root, 'arms', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'arm.json'),
    JSON.stringify({ name, prompt: 'zero_shot', retrieval: null, upper_bound: false, model: 'm', guard: null }),
  );
  writeFileSync(path.join(dir, 'corrections.jsonl'), jsonl(lines.map((l) => armCorrectionRecord(l, BOOK, 'zero_shot', out(l)))));
}

describe('analysis/arms in canonical form, on real OCR_GS lines', function () {
  this.timeout(240_000);
  let root: string;
  let a: ArmsAnalysis;
  let lines: OcrGsLine[];
  const arm = (name: string) => a.arms.find((r) => r.name === name)!;

  before(async function () {
    requireSharedData(this, 'ocr-gs');
    lines = loadOcrGsLines(OCR_GS_ROOT).filter((l) => l.book === BOOK);
    root = mkdtempSync(path.join(os.tmpdir(), 'canonical-arms-'));
    writeArm(root, 'ocr', lines, (l) => ({ corrected: l.ocr }));
    writeArm(root, 'nfc_ocr', lines, (l) => ({ corrected: l.ocr.normalize('NFC') }));
    writeArm(root, 'nfc_gold', lines, (l) => ({ corrected: l.gt.normalize('NFC') }));
    // A guarded arm whose raw answers are the gold line after a think block and a label: cleaning (not the guard) removes them.
    writeArm(root, 'guarded_gold', lines, (l) => ({
      corrected: l.gt.normalize('NFC'),
      raw: `<think>checking</think>\nCorrected text: ${l.gt.normalize('NFC')}`,
      guard: 'kept',
    }));
    a = await analyzeArms({ resultsDir: root, baseline: 'ocr', bootstrap: { iterations: 20, seed: 1 }, write: false });
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it('the data is partly decomposed, so NFC changes the texts the arms write', () => {
    expect(lines).to.have.length(790);
    expect(lines.filter((l) => l.ocr !== l.ocr.normalize('NFC')).length).to.be.greaterThan(100);
  });

  it('NFC(OCR) against the OCR-identity baseline: ΔCER exactly 0, CER exactly the OCR CER', () => {
    expect(arm('nfc_ocr').vs_baseline!.delta_cer).to.equal(0);
    expect(arm('nfc_ocr').vs_baseline!.better + arm('nfc_ocr').vs_baseline!.worse).to.equal(0);
    expect(arm('nfc_ocr').cer).to.equal(arm('ocr').cer);
    expect(arm('ocr').cer).to.equal(arm('ocr').ocr_cer);
  });

  it('NFC(gold) has CER exactly 0 under the primary profile', () => {
    expect(arm('nfc_gold').cer).to.equal(0);
    expect(arm('nfc_gold').wer).to.equal(0);
  });

  it('raw_cer is the output before the guard: cleaned of think blocks and labels, so a kept gold answer has raw_cer 0', () => {
    expect(arm('guarded_gold').raw_cer).to.equal(0);
    expect(arm('guarded_gold').cer).to.equal(0);
  });

  it('arms.json lists every profile with its rules; NFC(OCR) is ΔCER 0 and NFC(gold) CER 0 under each', () => {
    expect(a.profiles.map((p) => [p.profile, p.primary])).to.deep.equal([
      ['nfc', true],
      ['no_diacritics', false],
      ['graphemes', false],
    ]);
    for (const p of a.profiles) {
      const row = (name: string) => p.arms.find((r) => r.arm === name)!;
      expect(p.rules, p.profile).to.be.a('string').and.not.empty;
      expect(row('nfc_ocr').delta_cer_vs_baseline, p.profile).to.equal(0);
      expect(row('nfc_gold').cer, p.profile).to.equal(0);
      expect(row('ocr').delta_cer_vs_baseline, p.profile).to.equal(null);
      expect(row('nfc_gold').n_paired, p.profile).to.equal(790);
    }
    // The primary row repeats the headline figures.
    expect(a.profiles[0].arms.find((r) => r.arm === 'ocr')!.cer).to.equal(arm('ocr').cer);
    // no_diacritics forgives what nfc counts.
    expect(a.profiles[1].arms.find((r) => r.arm === 'ocr')!.cer!).to.be.below(arm('ocr').cer!);
  });

  it('a primary profile other than nfc scores the headline figures under it', async () => {
    const nd = await analyzeArms({
      resultsDir: root,
      baseline: 'ocr',
      bootstrap: { iterations: 20, seed: 1 },
      write: false,
      normalization: { primary: 'no_diacritics', secondary: [] },
    });
    const ocr = nd.arms.find((r) => r.name === 'ocr')!;
    expect(nd.profiles.map((p) => p.profile)).to.deep.equal(['no_diacritics']);
    expect(ocr.cer).to.equal(nd.profiles[0].arms.find((r) => r.arm === 'ocr')!.cer);
    expect(ocr.cer).to.equal(a.profiles[1].arms.find((r) => r.arm === 'ocr')!.cer);
    expect(ocr.cer!).to.be.below(arm('ocr').cer!);
  });
});
