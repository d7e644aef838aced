import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scoreFiles } from '../../../analysis/outside/score-files';
import { REPO_ROOT } from '../../helpers/shared-data';

const FIX = path.join(REPO_ROOT, 'test', 'fixtures', 'hipe-ocrepair');
const expected = JSON.parse(readFileSync(path.join(FIX, 'expected.json'), 'utf8')) as Record<string, Record<string, number>>;
const tmp = () => mkdtempSync(path.join(tmpdir(), 'score-files-'));
const systems = ['system_a', 'system_b'].map((name) => ({ name, file: path.join(FIX, `${name}.jsonl`) }));
const run = (profile: string, dir = tmp()) =>
  scoreFiles({
    resultsDir: dir,
    references: [path.join(FIX, 'reference.jsonl')],
    systems,
    normalization: { primary: profile, secondary: [] },
    bootstrap: { iterations: 200 },
    report: false,
  });

describe('analysis/outside/score-files (phase5 score)', function () {
  this.timeout(120_000);

  it("reproduces the HIPE-OCRepair scorer's cMER, wMER and preference under hipe2026 (expected.json: the scorer's own figures)", async () => {
    const { analysis, excluded } = await run('hipe2026');
    expect(excluded).to.equal(1);
    for (const name of ['system_a', 'system_b']) {
      const m = analysis.arms.find((a) => a.name === name)!.datasets.fixture_en;
      const e = expected[name];
      expect(m.cmer, `${name} cmer`).to.be.closeTo(e.cmer_micro, 1e-6);
      expect(m.cmer_macro, `${name} cmer_macro`).to.be.closeTo(e.cmer_macro, 1e-6);
      expect(m.wmer, `${name} wmer`).to.be.closeTo(e.wmer_micro, 1e-6);
      expect(m.wmer_macro, `${name} wmer_macro`).to.be.closeTo(e.wmer_macro, 1e-6);
      expect(m.preference.score, `${name} preference`).to.be.closeTo(e.pref_score_cmer_macro, 1e-6);
    }
    // The "None" and the empty output of system_b are its OCR text, counted and said.
    expect(analysis.warnings).to.include(
      `system system_b: 2 output(s) missing, "None" or empty, scored as the OCR text (HIPE-OCRepair's rule)`,
    );
    const ocr = analysis.arms.find((a) => a.name === 'ocr')!;
    expect(analysis.baseline).to.equal('ocr');
    expect(ocr.preference.score).to.equal(0);
  });

  it('the profile decides the figures: under nfc (no case folding, punctuation kept) they are not the scorer’s', async () => {
    const { analysis } = await run('nfc');
    const m = analysis.arms.find((a) => a.name === 'system_a')!.datasets.fixture_en;
    expect(Math.abs(m.cmer! - expected.system_a.cmer_micro)).to.be.above(1e-3);
  });

  it('writes study/arms.json with the bounded figures beside cer, per dataset and pooled', async () => {
    const dir = tmp();
    await run('hipe2026', dir);
    const arms = JSON.parse(readFileSync(path.join(dir, 'study', 'arms.json'), 'utf8'));
    const a = arms.arms.find((x: { name: string }) => x.name === 'system_a');
    for (const m of [a, a.datasets.fixture_en]) {
      expect(m).to.include.keys('cer', 'cmer', 'cmer_macro', 'wmer', 'wmer_macro', 'preference');
      expect(m.preference).to.have.keys('score', 'ci95', 'worse_share');
    }
    expect(a.prompt).to.equal('external');
  });

  it('names the file, line and field of a bad record, and refuses paired text of different lengths', async () => {
    const dir = tmp();
    const bad = path.join(dir, 'bad.jsonl');
    writeFileSync(
      bad,
      readFileSync(path.join(FIX, 'reference.jsonl'), 'utf8').replace(
        '"ocr_hypothesis": {"transcription_unit"',
        '"ocr_hypothesis": {"text"',
      ),
    );
    const err = await scoreFiles({ resultsDir: dir, references: [bad], systems, report: false }).catch((e: Error) => e);
    expect(String(err)).to.match(/bad\.jsonl:1: ocr_hypothesis\.transcription_unit: expected a string, got nothing/);
    writeFileSync(path.join(dir, 'g.txt'), 'a\nb\n');
    writeFileSync(path.join(dir, 'o.txt'), 'a\n');
    const err2 = await scoreFiles({
      resultsDir: dir,
      gold: path.join(dir, 'g.txt'),
      ocr: path.join(dir, 'o.txt'),
      systems: [{ name: 's', file: path.join(dir, 'o.txt') }],
      report: false,
    }).catch((e: Error) => e);
    expect(String(err2)).to.match(/o\.txt: 1 lines, but .*g\.txt has 2/);
  });

  it('scores plain paired text, systems as arms against the OCR text', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'gold.txt'), 'the cat sat\non the mat\n');
    writeFileSync(path.join(dir, 'ocr.txt'), 'tbe cat sat\non tlie mat\n');
    writeFileSync(path.join(dir, 'fixed.txt'), 'the cat sat\non tlie mat\n');
    const { analysis } = await scoreFiles({
      resultsDir: dir,
      gold: path.join(dir, 'gold.txt'),
      ocr: path.join(dir, 'ocr.txt'),
      systems: [{ name: 'fixed', file: path.join(dir, 'fixed.txt') }],
      report: false,
    });
    const m = analysis.arms.find((a) => a.name === 'fixed')!;
    expect(m.lines).to.equal(2);
    expect(m.preference.score).to.equal(0.5); // one line better, one the same
    expect(m.cmer).to.be.closeTo(2 / 22, 1e-6); // 'tlie' vs 'the': 1 substitution + 1 insertion over 22 aligned
  });
});
