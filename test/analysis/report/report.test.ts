/**
 * One renderer, two shapes: from the design files and the arms analysis of a default study (both answers' sources,
 * the design sections), from the arms analysis alone (no design files in the folder: the Arms section, no design
 * sections), and a one-line error with the fix from a folder that has neither.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderReport } from '../../../analysis/report/report';
import { analyzeArms } from '../../../analysis/study/arms';
import { runDefaultStudy, STATS } from '../default-arms-study';

const headings = (md: string) => md.split('\n').filter((l) => /^## /.test(l));

describe('analysis/report/report renderReport', function () {
  this.timeout(120000);
  const root = mkdtempSync(path.join(os.tmpdir(), 'render-report-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('renders the design files with the arms analysis, the arms analysis alone, and fails with the fix on neither', async () => {
    await runDefaultStudy(root, ['A', 'B'], undefined, { report: { png: false }, reportDir: path.join(root, 'study') });
    const full = headings(readFileSync(path.join(root, 'study', 'report.md'), 'utf8'));
    expect(full[0]).to.equal('## The answer');
    expect(full).to.include.members(['## Arms', '## Charts', '## Notes']);

    const arms = await analyzeArms({ resultsDir: root, baseline: 'zero_shot', defaultArms: { topK: 3, model: 'm' }, ...STATS });
    const alone = path.join(root, 'alone');
    mkdirSync(alone);
    const r = await renderReport(alone, { png: false, arms });
    const md = readFileSync(path.join(alone, 'report.md'), 'utf8');
    expect(md.split('\n')[0]).to.equal('# Study arms report');
    expect(headings(md)[0]).to.equal('## The answer');
    expect(headings(md)).to.include('## Arms').and.not.include('## Charts').and.not.include('## Notes');
    expect(r.files).to.include.members(['report.md', 'report.html']);

    const empty = path.join(root, 'empty');
    mkdirSync(empty);
    let message = '';
    await renderReport(empty, { png: false }).catch((e: Error) => (message = e.message));
    expect(message).to.equal(`${path.join(empty, 'metrics.json')} not found: run the analyze stage first`);
  });
});
