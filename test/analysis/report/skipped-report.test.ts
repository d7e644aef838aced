/**
 * The report lists the input lines/files the export left out (skipped.json beside the export), per dataset — and a study
 * with nothing skipped gets byte-identical report.md / report.html (no empty section).
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import type { Skips } from '../../../src/stages/shared/skips';
import { writeStudy, type Pair } from '../helpers';

const pairs = (ds: string, n: number): Pair[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${ds}/${String(i).padStart(3, '0')}`,
    gt: `قال أبو عثمان في الكتاب ${i}`,
    ocr: `قال ابو عتمان فى الكتاب ${i}`,
  }));

describe('report: skipped inputs', function () {
  this.timeout(120000);
  const root = mkdtempSync(path.join(os.tmpdir(), 'skipped-report-'));
  const s = writeStudy(root, {
    datasets: { A: pairs('A', 8), B: pairs('B', 8) },
    phase5: (p) => ({ corrected: p.gt }),
    phase2: (p) => ({ corrected: p.ocr }),
  });
  const analyze = () =>
    analyzeDesignFiles({
      ragDir: s.ragDir,
      baselineDir: s.baselineDir,
      bootstrap: { iterations: 20, seed: 1 },
      progress: 'silent',
      logFile: false,
      report: { png: false },
    });
  const read = () => ({
    md: readFileSync(path.join(s.ragDir, 'report.md'), 'utf8'),
    html: readFileSync(path.join(s.ragDir, 'report.html'), 'utf8'),
  });
  const skippedFile = path.join(s.ragDir, 'skipped.json'); // beside the inference_input.jsonl the arm read
  const skipped: Record<string, Skips> = {
    A: {
      badLines: {
        count: 3,
        examples: ['/data/a.jsonl:4: invalid JSON (x)', '/data/a.jsonl:9: missing field "gt_text"', '/data/a.jsonl:12: not a JSON object'],
      },
      duplicateIds: { count: 1, examples: ['/data/a.jsonl:7: A/001'] },
    },
    Z: { emptyGt: { count: 1, examples: ['z.gt.txt'] } }, // not a dataset of this report
  };

  after(() => rmSync(root, { recursive: true, force: true }));

  it('lists them per dataset when the export skipped.json has any, and leaves the report byte-identical otherwise', async () => {
    await analyze();
    const clean = read();
    expect(clean.md).to.not.contain('Skipped inputs');
    mkdirSync(path.dirname(skippedFile), { recursive: true });
    writeFileSync(skippedFile, JSON.stringify(skipped));
    await analyze();
    const withSkips = read();
    expect(withSkips.md).to.contain('## Skipped inputs');
    expect(withSkips.md).to.contain('- A: 4 skipped — 3 invalid line (a.jsonl:4, :9, :12), 1 duplicate sample_id (a.jsonl:7)');
    expect(withSkips.md).to.not.contain('Z:');
    expect(withSkips.html).to.contain('Skipped inputs').and.to.contain('3 invalid line (a.jsonl:4, :9, :12)');
    rmSync(skippedFile);
    await analyze();
    const again = read();
    expect(again.md).to.equal(clean.md);
    expect(again.html).to.equal(clean.html);
  });
});
