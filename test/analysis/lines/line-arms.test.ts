import { expect } from 'chai';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import { FIXTURES } from '../../helpers/shared-data';

describe('analysis/arms: extra arms of the Lines view and turning it off', function () {
  this.timeout(60000);
  let root: string;
  let ragDir: string;
  const run = (extra: Parameters<typeof analyzeDesignFiles>[0] | object) =>
    analyzeDesignFiles({
      ragDir,
      baselineDir: path.join(root, 'phase2'),
      bootstrap: { iterations: 10 },
      progress: 'silent',
      maxFailedShare: 1,
      report: false,
      logFile: false,
      ...extra,
    });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'arms-'));
    cpSync(path.join(FIXTURES, 'analysis', 'study'), root, { recursive: true });
    ragDir = path.join(root, 'phase5');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('names the missing corrections file of an arm, and a repeated arm name', async () => {
    const missing = path.join(root, 'arms', 'x', 'corrections.jsonl');
    await run({ lines: { arms: [{ name: 'x', correctionsPath: missing }] } }).then(
      () => expect.fail('no error'),
      (e: Error) => expect(e.message).to.equal(`${missing} not found (corrections of arm "x")`),
    );
    const again = { name: 'rag', correctionsPath: path.join(ragDir, 'corrections.jsonl') };
    await run({ lines: { arms: [again] } }).then(
      () => expect.fail('no error'),
      (e: Error) => expect(e.message).to.match(/arm "rag" is given twice/),
    );
    await run({ lines: { baseline: 'nope' } }).then(
      () => expect.fail('no error'),
      (e: Error) => expect(e.message).to.match(/baseline arm "nope" is not one of the arms \(rag, zero_shot\)/),
    );
  });

  it("lines: false writes no lines.json / error_classes.json and removes an earlier run's", async () => {
    await run({});
    expect(existsSync(path.join(ragDir, 'lines.json'))).to.equal(true);
    const s = await run({ lines: false });
    expect(existsSync(path.join(ragDir, 'lines.json'))).to.equal(false);
    expect(existsSync(path.join(ragDir, 'error_classes.json'))).to.equal(false);
    expect(s.files).to.not.include('lines.json');
  });
});
