/**
 * The validity mark: a comparison in which a condition failed on more than `maxFailedShare` of its lines
 * (failed lines score as the raw OCR) is `valid: false` with an `invalid_reason` in the JSON documents and the
 * summary, is named at the top of report.md / report.html instead of a headline ΔCER, and `phase5 report`
 * prints the reason instead of a ΔCER. A study without failures gets no new key at all.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import type { AnalyzeOptions } from '../../../analysis/types';
import { asDefaultArms } from '../../helpers/default-arms';
import { REPO_ROOT } from '../../helpers/shared-data';
import { writeStudy, type Pair, type StudySpec } from '../helpers';

const pairs = (ds: string, n: number): Pair[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${ds}/${String(i).padStart(3, '0')}`,
    gt: `قال أبو عثمان في الكتاب ${i}`,
    ocr: `قال ابو عتمان فى الكتاب ${i}`,
  }));

const read = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

/** Datasets A and B of 20 lines; Phase 5 fixes every line except the failed ones, Phase 2 leaves the OCR. */
function study(failedP5: (p: Pair) => boolean, failedP2: (p: Pair) => boolean = () => false) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'validity-'));
  const spec: StudySpec = {
    datasets: { A: pairs('A', 20), B: pairs('B', 20) },
    phase5: (p) => (failedP5(p) ? { corrected: '', error: 'connection: ECONNREFUSED' } : { corrected: p.gt }),
    phase2: (p) => (failedP2(p) ? { corrected: '', error: 'server_error: HTTP 503' } : { corrected: p.ocr }),
  };
  return { root, ...writeStudy(root, spec) };
}

const options = (s: { ragDir: string; baselineDir: string }, extra: Partial<AnalyzeOptions> = {}): AnalyzeOptions => ({
  ragDir: s.ragDir,
  baselineDir: s.baselineDir,
  bootstrap: { iterations: 50, seed: 1 },
  progress: 'silent',
  logFile: false,
  ...extra,
});

/** Every JSON document the analysis wrote, by relative path. */
function jsonDocs(dir: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.json') && !e.parentPath.includes('charts'))
      out.set(path.relative(dir, path.join(e.parentPath, e.name)), read(path.join(e.parentPath, e.name)));
  }
  return out;
}

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(path.relative(dir, path.join(e.parentPath, e.name)), readFileSync(path.join(e.parentPath, e.name), 'latin1'));
  }
  return out;
}

describe('analysis validity (too many failed lines → no headline comparison)', function () {
  this.timeout(120000);

  it('marks the comparison of a dataset with failed Phase 5 lines over the share not valid — JSON, summary and report', async () => {
    const s = study((p) => p.id.startsWith('A/') && Number(p.id.slice(2)) < 3); // 3 of A's 20 lines failed
    const summary = await analyzeDesignFiles(options(s));
    const a = read(path.join(s.ragDir, 'A', 'comparison_vs_phase2.json'));
    expect(a.valid).to.equal(false);
    expect(a.invalid_reason).to.match(
      /^Phase 5 \(RAG\): 3 of 20 lines failed \(15\.0%\), over infer\.max_failed_share 1\.0%; .*no ΔCER is reported/,
    );
    expect(a.interpretation).to.match(/^Not valid: /);
    // Safety net: before, this was a confident "CER reduced by …" headline computed with failed lines as OCR.
    expect(a.interpretation).not.to.match(/reduced/);
    const b = read(path.join(s.ragDir, 'B', 'comparison_vs_phase2.json'));
    expect(b).not.to.have.any.keys('valid', 'invalid_reason');
    expect(b.interpretation).to.match(/^CER reduced/);

    const all = read(path.join(s.ragDir, 'comparison.json'));
    expect(all.overall.valid).to.equal(false);
    expect(all.overall.invalid_reason).to.match(/^Phase 5 \(RAG\): 3 of 40 lines failed \(7\.5%\)/); // pooled over both datasets
    expect(all.datasets.A.valid).to.equal(false);
    expect(all.datasets.B).not.to.have.any.keys('valid', 'invalid_reason');
    expect(summary.datasets.find((d) => d.dataset === 'A')).to.include({ valid: false });
    expect(summary.datasets.find((d) => d.dataset === 'B')).not.to.have.any.keys('valid', 'invalid_reason');
    expect(summary.overall.valid).to.equal(false);

    const md = readFileSync(path.join(s.ragDir, 'report.md'), 'utf8');
    const top = md.slice(0, md.indexOf('## Main results'));
    expect(top).to.contain('**Not valid — no headline ΔCER.**');
    expect(top).to.match(/- A: Phase 5 \(RAG\): 3 of 20 lines failed/);
    expect(md).to.match(/\| A \| 20 \| [^|]+ \| [^|]+ \| [^|]+ \| not valid \| not valid \| not valid \|/);
    expect(md).to.match(/\| B \| 20 \| [^|]+ \| [^|]+ \| [^|]+ \| −[\d.]+ pp \|/);
    expect(md).to.match(/Overall: Not valid: Phase 5 \(RAG\): 3 of 40/);
    const html = readFileSync(path.join(s.ragDir, 'report.html'), 'utf8');
    expect(html).to.contain('<p><strong>Not valid — no headline ΔCER.</strong>');
  });

  it('failed baseline (Phase 2) lines invalidate the comparison too; under the share it stays valid', async () => {
    const s = study(
      () => false,
      (p) => p.id.startsWith('B/') && Number(p.id.slice(2)) < 5,
    );
    await analyzeDesignFiles(options(s, { report: false }));
    expect(read(path.join(s.ragDir, 'B', 'comparison_vs_phase2.json')).invalid_reason).to.match(
      /^Phase 2 \(zero-shot\): 5 of 20 lines failed \(25\.0%\)/,
    );
    await analyzeDesignFiles(options(s, { report: false, maxFailedShare: 0.25 }));
    expect(read(path.join(s.ragDir, 'B', 'comparison_vs_phase2.json'))).not.to.have.any.keys('valid', 'invalid_reason');
  });

  it('the all-datasets comparison is not valid when one dataset is, even if the pooled share is under the limit', async () => {
    const s = study((p) => p.id === 'A/000'); // A: 1 of 20 (5%); pooled: 1 of 40 (2.5%)
    const summary = await analyzeDesignFiles(options(s, { report: false, maxFailedShare: 0.03 }));
    const all = read(path.join(s.ragDir, 'comparison.json'));
    expect(all.overall.invalid_reason).to.match(
      /^A not valid — Phase 5 \(RAG\): 1 of 20 lines failed \(5\.0%\), over infer\.max_failed_share 3\.0%/,
    );
    expect(summary.overall.valid).to.equal(false);
  });

  it('a study without failures gets no new key, and its files do not depend on the threshold', async () => {
    const s = study(() => false);
    await analyzeDesignFiles(options(s, { maxFailedShare: 0 }));
    const strict = files(s.ragDir);
    for (const [file, doc] of jsonDocs(s.ragDir)) expect(JSON.stringify(doc), file).not.to.match(/"valid"|"invalid_reason"/);
    expect(readFileSync(path.join(s.ragDir, 'report.md'), 'utf8')).not.to.contain('Not valid');
    await analyzeDesignFiles(options(s, { maxFailedShare: 1 }));
    expect(files(s.ragDir)).to.deep.equal(strict);
  });

  it('`phase5 report` prints the reason instead of a ΔCER for a comparison that is not valid', () => {
    const s = study((p) => p.id.startsWith('A/') && Number(p.id.slice(2)) < 3);
    asDefaultArms(s.root, s); // where `phase5 report` reads a results dir's default arms
    const config = path.join(s.root, 'config.yaml');
    writeFileSync(config, `paths:\n  results_dir: ${s.root}\nanalysis:\n  bootstrap_iterations: 50\n`);
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', config, 'report'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 90000,
    });
    expect(r.status, r.stderr).to.equal(0);
    const lineA = r.stdout.split('\n').find((l) => l.startsWith('A '))!;
    const lineB = r.stdout.split('\n').find((l) => l.startsWith('B '))!;
    expect(lineA).to.match(/ΔCER not valid: Phase 5 \(RAG\): 3 of 20 lines failed/);
    expect(lineA).not.to.match(/ΔCER -?\d/);
    expect(lineB).to.match(/ΔCER -\d\.\d{4}$/);
  });
});
