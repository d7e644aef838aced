/**
 * What an attach to a finished run checks (bin/cli/finished-files.ts): every `{ path, sha256 }` its result names.
 * The analysis names every file it wrote; replacing one of them after the run (here report.html, then an arm's
 * corrections as an infer result names them) is noticed in one line naming the file, and an intact result passes.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as analyze from '../../analysis/stage';
import { optionsFrom } from '../../analysis/stage/options';
import type { AnalyzeResult } from '../../analysis/stage/result';
import { parseConfig } from '../../src/config/load';
import { writtenFile } from '../../src/stages/shared/written-file';
import { replacedFile, writtenFiles } from '../../bin/cli/finished-files';
import { writeStudy, type Pair } from '../analysis/helpers';
import { asDefaultArms } from '../helpers/default-arms';

const pairs = (n: number): Pair[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `book/${String(i).padStart(3, '0')}`,
    gt: `قال أبو عثمان في الكتاب ${i}`,
    ocr: `قال ابو عتمان فى الكتاب ${i}`,
  }));

describe('attach checks: the files a finished run names', function () {
  this.timeout(120000);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'finished-files-'));
  const results = path.join(tmp, 'results');
  const config = parseConfig(
    { paths: { results_dir: results }, datasets: { book: { type: 'jsonl', path: path.join(tmp, 'book.jsonl') } } },
    'finished-files test',
    { env: {} },
  );
  let result: AnalyzeResult;

  before(async () => {
    // The default arms' folders, as export and infer leave them (arms/rag, arms/zero_shot).
    asDefaultArms(
      results,
      writeStudy(path.join(tmp, 'written'), {
        datasets: { book: pairs(8) },
        phase5: (p) => ({ corrected: p.gt }),
        phase2: (p) => ({ corrected: p.ocr }),
      }),
    );
    const options = await optionsFrom(config, {});
    result = await analyze.run({ ...options, bootstrap: { ...options.bootstrap, iterations: 20 }, logFile: false }, {}, 'silent');
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('the analysis result names the documents (rag arm folder), the arms analysis and the one report (study/) it wrote, with their sha256', async () => {
    const named = writtenFiles(result).map((f) => path.relative(results, f.path));
    expect(named).to.include.members([
      'arms/rag/metrics.json',
      'arms/rag/comparison.json',
      'arms/rag/book/metrics.json',
      'study/arms.json',
      'study/report.html',
    ]);
    expect(await replacedFile(result)).to.equal(null);
  });

  it('a replaced report.html is noticed, naming the file', async () => {
    const report = path.join(results, 'study', 'report.html');
    writeFileSync(report, '<html>another run</html>');
    expect(await replacedFile(result)).to.match(
      new RegExp(
        `^${report.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not the file it wrote \\(sha256 [0-9a-f]{12}…, now [0-9a-f]{12}…\\)$`,
      ),
    );
  });

  it("an arm's corrections.jsonl replaced after its infer finished is noticed; removed, it is gone", async () => {
    const corrections = path.join(results, 'arms', 'zero_shot', 'corrections.jsonl');
    const inferResult = { zero_shot: { arm: 'zero_shot', output: corrections, outputFile: await writtenFile(corrections) } };
    expect(await replacedFile(inferResult)).to.equal(null);
    writeFileSync(corrections, '{}\n');
    expect(await replacedFile(inferResult)).to.contain(`${corrections} is not the file it wrote`);
    rmSync(corrections);
    expect(await replacedFile(inferResult)).to.equal(`${corrections} is gone`);
  });
});
