/**
 * The Lines view's diff: made from the alignment CER counts, it must stand for exactly that many edits and
 * give back both texts, on every OCR_GS line; and it never cuts through a letter's diacritics or a lam-alef.
 */
import { expect } from 'chai';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import { alignmentColumns, diffSegments, diffSides, type DiffSegment } from '../../../analysis/lines/diff';
import { normalizeArabic } from '../../../src/text/arabic';
import { prepareText, scoreDistances, scorePrepared } from '../../../src/text/distance';
import { unitBoundaries } from '../../../src/text/graphemes';
import { requireSharedData } from '../../helpers/shared-data';
import { ocrGsDatasets, writeOcrGsStudy } from '../../helpers/ocr-gs-study';

const SHADDA = '\u0651',
  FATHA = '\u064E',
  KASRA = '\u0650';

function diffOf(gold: string, hyp: string): { segs: DiffSegment[]; edits: number } {
  const a = scorePrepared(gold, hyp, true);
  return { segs: diffSegments(gold, hyp, a.ops!), edits: a.score.charEdits };
}

/** Every cut between segments falls on a display-unit boundary of both texts. */
function cutsOnUnits(gold: string, hyp: string, segs: readonly DiffSegment[]): boolean {
  const gb = unitBoundaries(gold);
  const hb = unitBoundaries(hyp);
  let gi = 0,
    hj = 0;
  for (const s of segs) {
    gi += [...(typeof s === 'string' ? s : s[0])].length;
    hj += [...(typeof s === 'string' ? s : s[1])].length;
    if (!gb[gi] || !hb[hj]) return false;
  }
  return true;
}

describe('analysis/diff: the Lines view diff is the counted alignment', () => {
  it('highlights a changed haraka with its whole letter', () => {
    expect(diffOf(`ك${FATHA}ت${FATHA}ب`, `ك${KASRA}ت${FATHA}ب`).segs).to.deep.equal([[`ك${FATHA}`, `ك${KASRA}`, 1], `ت${FATHA}ب`]);
  });

  it('keeps stacked diacritics on their letter when one of them is lost', () => {
    const { segs, edits } = diffOf(`قد${SHADDA}${FATHA}م`, `قد${SHADDA}م`);
    expect(segs).to.deep.equal(['ق', [`د${SHADDA}${FATHA}`, `د${SHADDA}`, 1], 'م']);
    expect(edits).to.equal(1);
  });

  it('treats lam-alef as one unit: a changed alef or an inserted tatweel highlights the ligature', () => {
    expect(diffOf('قال لا', 'قال لأ').segs).to.deep.equal(['قال ', ['لا', 'لأ', 1]]);
    expect(diffOf('سلام', 'سلـام').segs).to.deep.equal(['س', ['لا', 'لـا', 1], 'م']);
  });

  it('shows substitutions, insertions and deletions as their own segments', () => {
    expect(diffOf('في البيت', 'فيالبيت').segs).to.deep.equal(['في', [' ', '', 1], 'البيت']);
    expect(diffOf('رجل', 'رجال').segs).to.deep.equal(['رج', ['', 'ا', 1], 'ل']);
    expect(diffOf('الشيخ', 'الشبخ').segs).to.deep.equal(['الش', ['ي', 'ب', 1], 'خ']);
  });

  it('refuses ops that do not cover the texts (a broken alignment is never drawn)', () => {
    expect(() =>
      alignmentColumns(3, 2, [
        { type: 'D', ref: 0, hyp: 0 },
        { type: 'D', ref: 1, hyp: 0 },
      ]),
    ).to.throw(/does not cover/);
  });

  it('on every OCR_GS line: summed edits = the CER numerator, both texts come back, cuts on units', function () {
    this.timeout(120000);
    const root = requireSharedData(this, 'ocr-gs');
    let lines = 0;
    for (const pairs of Object.values(ocrGsDatasets(root))) {
      for (const p of pairs) {
        const g = prepareText(p.gt);
        // The OCR text, and an output that loses every diacritic and hamza (many changes inside clusters).
        for (const h of [prepareText(p.ocr), normalizeArabic(p.gt)]) {
          const { segs } = diffOf(g, h);
          const sides = diffSides(segs);
          expect(sides, p.id).to.deep.equal({ gold: g, output: h, edits: scoreDistances(g, h).charEdits });
          expect(cutsOnUnits(g, h, segs), p.id).to.equal(true);
        }
        lines++;
      }
    }
    expect(lines).to.equal(5092);
  });

  it('lines.json of a full OCR_GS analysis sums to the char_edits of metrics.json, per arm and dataset', async function () {
    this.timeout(300000);
    const ocrGs = requireSharedData(this, 'ocr-gs');
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'diff-ocrgs-'));
    try {
      const s = writeOcrGsStudy(tmp, ocrGs);
      await analyzeDesignFiles({
        ragDir: s.ragDir,
        baselineDir: s.baselineDir,
        bootstrap: { iterations: 10 },
        progress: 'silent',
        report: false,
        logFile: false,
      });
      const read = (f: string) => JSON.parse(readFileSync(path.join(s.ragDir, f), 'utf8'));
      const doc = read('lines.json');
      expect(doc.lines).to.have.length(s.lines);
      for (const ds of read('metrics.json').meta.datasets as string[]) {
        const m = read(`${ds}/metrics.json`);
        const mine = doc.lines.filter((l: { dataset: string }) => l.dataset === ds);
        const sum = (f: (l: Record<string, any>) => number) => mine.reduce((a: number, l: Record<string, any>) => a + f(l), 0); // eslint-disable-line @typescript-eslint/no-explicit-any
        expect(
          sum((l) => l.ocr.edits),
          ds,
        ).to.equal(m.ocr_baseline.char_edits);
        expect(
          sum((l) => l.arms.rag.edits),
          ds,
        ).to.equal(m.corrected.char_edits);
        expect(
          sum((l) => diffSides(l.arms.rag.diff).edits),
          ds,
        ).to.equal(m.corrected.char_edits);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
